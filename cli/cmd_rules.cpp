// Rules subcommands: perft, legal.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "rules/movegen.h"
#include "rules/notation.h"
#include "rules/perft.h"
#include "rules/record.h"

namespace fuseki::cli {
namespace {

struct PositionArgs {
  std::string rules = "balance";
  std::string sfen;
  std::string moves;
};

void add_position_options(CLI::App* cmd, PositionArgs& a) {
  cmd->add_option("--rules", a.rules, "Rule set: " + rule_set_names())->capture_default_str();
  cmd->add_option("--sfen", a.sfen,
                  "Start position (extended SFEN); default: the rule set's start");
  cmd->add_option("--moves", a.moves, "Record to play first: \"K*5i K*5a choose:sente P*7f ...\"");
}

RuleSet rules_or_throw(const std::string& name) {
  auto r = parse_rule_set(name);
  if (!r) throw RulesError("unknown rule set '" + name + "' (known: " + rule_set_names() + ")");
  return *r;
}

Position build_position(const PositionArgs& a) {
  RuleSet r = rules_or_throw(a.rules);
  Position pos = a.sfen.empty() ? Position::start(r) : Position::from_sfen(a.sfen, r);
  play_record(pos, a.moves);
  return pos;
}

}  // namespace

void add_rules_commands(CLI::App& app, Runner& run) {
  auto pa = std::make_shared<PositionArgs>();
  auto depth = std::make_shared<int>(1);
  auto divide = std::make_shared<bool>(false);
  auto positions = std::make_shared<std::string>();

  CLI::App* perft_cmd = app.add_subcommand("perft", "Count the leaf nodes of the game tree");
  add_position_options(perft_cmd, *pa);
  perft_cmd->add_option("--depth", *depth, "Depth in plies (0 counts 1)")
      ->required()
      ->check(integer_in(0, 64));
  perft_cmd->add_flag("--divide", *divide, "Print the count below each root move");
  perft_cmd
      ->add_option("--positions", *positions,
                   "A file of positions (SFEN or Fairy-Stockfish FEN, optionally followed by "
                   "\" moves\" and USI moves played from it), one per line: prints each one's "
                   "count, one per line")
      ->excludes("--sfen")
      ->excludes("--divide");
  perft_cmd->callback([&run, pa, depth, divide, positions] {
    run = [pa, depth, divide, positions] {
      if (!positions->empty()) {
        if (std::filesystem::is_directory(*positions))
          throw RulesError(*positions + ": a directory, not a file of positions");
        std::ifstream in(*positions);
        if (!in) throw RulesError(*positions + ": cannot open");
        RuleSet r = rules_or_throw(pa->rules);
        int line_no = 0;
        for (std::string line; std::getline(in, line);) {
          ++line_no;
          if (line.empty() || line[0] == '#') continue;
          Position pos = [&] {
            try {
              // "SFEN moves M1 M2 ...": no SFEN or FEN field is the word "moves".
              size_t cut = line.find(" moves ");
              Position p = Position::from_sfen(line.substr(0, cut), r);
              if (cut != std::string::npos) play_record(p, line.substr(cut + 7));
              play_record(p, pa->moves);
              return p;
            } catch (const RulesError& e) {
              throw RulesError(*positions + ":" + std::to_string(line_no) + ": " + e.what());
            }
          }();
          std::cout << perft(pos, *depth) << "\n";
        }
        if (in.bad()) throw RulesError(*positions + ": cannot read");
        std::cout.flush();
        return 0;
      }
      Position pos = build_position(*pa);
      auto t0 = std::chrono::steady_clock::now();
      uint64_t nodes = 0;
      if (*divide && *depth > 0) {
        for (auto& [move, n] : perft_divide(pos, *depth)) {
          std::cout << move << ": " << n << "\n";
          nodes += n;
        }
      } else {
        nodes = perft(pos, *depth);
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cerr << "perft " << *depth << ": " << nodes << " nodes in " << secs << " s ("
                << (secs > 0 ? nodes / secs / 1e6 : 0.0) << " M nodes/s)\n";
      std::cout << nodes << std::endl;
      return 0;
    };
  });

  auto la = std::make_shared<PositionArgs>();
  CLI::App* legal_cmd = app.add_subcommand("legal", "List the legal moves, one per line (USI)");
  add_position_options(legal_cmd, *la);
  legal_cmd->callback([&run, la] {
    run = [la] {
      Position pos = build_position(*la);
      MoveList list;
      generate_legal(pos, list);
      for (Move m : list) std::cout << move_to_usi(m, pos.variant()) << "\n";
      return 0;
    };
  });
}

}  // namespace fuseki::cli
