// eval table and eval merge as library functions (cli/cmd_eval.cpp declares their flags): the
// king-pair table measured with real games in one process or as a slice of an array, its journal
// (DIR/journal.jsonl: one line per schedule and per game result, resumed after a kill), its
// outputs (table.json, table.csv, report.html, games.h5), and the merge of slices.
#pragma once

#include <string>
#include <vector>

#include "eval/table_builder.h"
#include "eval/table_options.h"

namespace fuseki {

// Measures (or resumes) the table in options.out; prints progress on stderr and a summary line.
// Returns the exit status; throws std::runtime_error on bad input (checked before anything is
// written) and Interrupted on a stop request.
int run_table(const TableRunOptions& options);

// Combines finished slices (eval table --shard i/n) into one table in `out_dir`; refuses a
// missing, unfinished, repeated or foreign slice, naming it.
int run_merge(const std::string& out_dir, const std::vector<std::string>& shards, int band,
              const std::string& compare);

// A table run's journal: its schedules and results, in order, up to a torn or garbled line;
// returns the lines kept.
// With `evaluations`, the evaluation pass's results too (eval table --score eval|both).
std::vector<std::string> read_table_journal(const std::string& path,
                                            std::vector<Schedule>& schedules,
                                            std::vector<PairResult>& results,
                                            std::vector<PairResult>* evaluations = nullptr);

}  // namespace fuseki
