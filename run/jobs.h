// The jobs of a training run as the commands run them (cli/cmd_pipeline.cpp declares their
// flags). Each returns the process exit status; errors are thrown as std::runtime_error, a stop
// request (SIGTERM) as Interrupted (io/stop.h).
#pragma once

#include <string>
#include <vector>

namespace fuseki {

// Every generation of a run on one machine: init, then self-play, training, gating and
// publication per generation; resumes an interrupted run. `overrides` are "section.key=value".
int run_pipeline(const std::string& config_path, const std::vector<std::string>& overrides);

// One self-play worker of the run in `dir`: `worker` is "i/n" (empty: from the Slurm array
// variables), `generation` the network to play (-1: the newest). With `follow` it goes on with
// each newer network until run.generations, waiting for the trainer; `timeout` seconds without a
// sign of the trainer end the wait with exit 3 (0: never).
int run_worker(const std::string& dir, const std::vector<std::string>& overrides,
               const std::string& worker, int generation, bool follow, double poll, double timeout);

// The trainer of the run in `dir`: for each generation up to run.generations, waits for its
// self-play (exit 3 after `timeout` seconds without a finished game; with `no_wait`, exit 4 at
// once naming the workers whose games are missing), trains, gates and publishes.
int run_trainer(const std::string& dir, const std::vector<std::string>& overrides, double poll,
                double timeout, bool no_wait);

// A match between two placers (checkpoints or "uniform"), printed as one JSON line. With `out`,
// the result is also written there, and until then its finished games are journalled in
// `out`.journal: a stopped match run again goes on where it stopped.
int run_match(const std::string& config_path, const std::vector<std::string>& overrides,
              const std::string& a, const std::string& b, int games, const std::string& out = {});

}  // namespace fuseki
