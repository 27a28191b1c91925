// Perft agreement with an independent oracle: Debian's Fairy-Stockfish (USI, `go perft N`).
//
// Positions: the shogi vectors of rules.md, and positions reached by random legal games under
// `balance`, `balance-v1` and `fuseki` (the standard SFEN after ply 40, then a few random moves of
// ordinary play). For every position and root move, FSF's count must equal ours plus the
// pawn-drop mates our generator leaves out in that subtree: FSF 11.1 generates uchifuzume, the
// rules forbid it. Any other difference is a rules bug.
//
// FSF is found through $FUSEKILAB_FSF, /usr/games/fairy-stockfish or `fairy-stockfish` on PATH;
// without it the tests are skipped.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/match.h"
#include "rules/movegen.h"
#include "rules/notation.h"
#include "rules/perft.h"
#include "rules/position.h"
#include "rules/rng.h"

using namespace fuseki;

namespace {

// Fairy-Stockfish's divide; a failure (engine died, garbled output) fails the test.
std::optional<std::map<std::string, uint64_t>> fsf_divide(UsiEngine& fsf, const std::string& sfen,
                                                          int depth) {
  try {
    return fsf.perft(sfen, depth, 120).divide;
  } catch (const EngineError& e) {
    ADD_FAILURE() << e.what();
    return std::nullopt;
  }
}

// Pawn drops at `pos` that FSF generates and our generator leaves out: the pawn-drop mates.
// Derived without the generator's own filter: a pawn drop that gives check (the square in front of
// the enemy king), is otherwise legal (pawn in hand, empty square, no own unpromoted pawn on the
// file, own king safe afterwards) and leaves the opponent without a legal move. Cross-checks
// is_pawn_drop_mate and the generator's list on the way.
int excluded_pawn_drop_mates(Position& pos) {
  Color us = pos.side_to_move(), them = ~us;
  if (pos.in_placement() || !pos.hand(us, PAWN)) return 0;
  Square ksq = pos.king_square(them);
  if (ksq == SQ_NONE) return 0;
  int rank = rank_of(ksq) + (us == BLACK ? 1 : -1);
  if (rank < 0 || rank >= RANK_NB) return 0;
  Square s = make_square(file_of(ksq), rank);
  if (pos.piece_on(s) != NO_PIECE) return 0;
  for (int r = 0; r < RANK_NB; ++r)
    if (pos.piece_on(make_square(file_of(s), r)) == make_piece(us, PAWN)) return 0;

  Move drop = make_drop(PAWN, s);
  pos.do_move(drop);
  bool self_check = pos.king_attacked(us);
  bool mate = !self_check && count_legal(pos) == 0;
  pos.undo_move(drop);
  if (self_check) return 0;

  MoveList list;
  generate_legal(pos, list);
  EXPECT_EQ(is_pawn_drop_mate(pos, s), mate) << pos.sfen() << " P*" << square_name(s);
  EXPECT_EQ(list.contains(drop), !mate) << pos.sfen() << " P*" << square_name(s);
  return mate ? 1 : 0;
}

// Leaves FSF counts beyond ours in the subtree of `pos` to `depth` (>= 1). An extra FSF move
// above the last ply is a mate, so its subtree holds no leaves: only the last ply differs.
uint64_t excluded_below(Position& pos, int depth) {
  if (depth <= 0) return 0;
  if (depth == 1) return uint64_t(excluded_pawn_drop_mates(pos));
  MoveList list;
  generate_legal(pos, list);
  uint64_t n = 0;
  for (Move m : list) {
    pos.do_move(m);
    n += excluded_below(pos, depth - 1);
    pos.undo_move(m);
  }
  return n;
}

struct Stats {
  int distinct = 0;   // positions
  int positions = 0;  // perft comparisons (position, depth)
  int by_depth[8] = {};
  int root_moves = 0;
  int explained = 0;  // root moves where FSF > ours, explained by pawn-drop mate
  int explained_by_depth[8] = {};
  uint64_t excluded = 0;    // pawn-drop mate leaves in total
  int root_drop_mates = 0;  // FSF root moves that are pawn-drop mates (absent from ours)
  int unexplained = 0;
  // Counts a difference; true for the first 30, which are reported in full (the rest only in
  // the summary).
  bool note_difference() { return ++unexplained <= 30; }
};

// Compares one position at one depth; failures name the SFEN, the move and both counts.
void compare(UsiEngine& fsf, Position pos, int depth, Stats& st) {
  static std::string last_sfen;
  std::string sfen = pos.sfen();
  if (sfen != last_sfen) ++st.distinct;
  last_sfen = sfen;
  auto theirs = fsf_divide(fsf, sfen, depth);
  ASSERT_TRUE(theirs.has_value()) << "fairy-stockfish gave no perft for " << sfen;
  ++st.positions;
  ++st.by_depth[depth];

  MoveList list;
  generate_legal(pos, list);
  std::map<std::string, Move> ours_moves;
  for (Move m : list) ours_moves[move_to_usi(m, pos.variant())] = m;

  for (const auto& [usi, fsf_count] : *theirs) {
    ++st.root_moves;
    auto it = ours_moves.find(usi);
    if (it == ours_moves.end()) {
      // Only a root pawn-drop mate may be missing from ours; its subtree is empty.
      bool drop_mate = false;
      if (usi.size() == 4 && usi[0] == 'P' && usi[1] == '*' && excluded_pawn_drop_mates(pos) == 1) {
        Square s = parse_square(usi.substr(2), pos.variant());
        Square k = pos.king_square(~pos.side_to_move());
        drop_mate = s != SQ_NONE && file_of(s) == file_of(k) &&
                    rank_of(s) == rank_of(k) + (pos.side_to_move() == BLACK ? 1 : -1);
      }
      if (drop_mate && fsf_count == 0) {
        ++st.root_drop_mates;
        continue;
      }
      if (st.note_difference())
        ADD_FAILURE() << "FSF move missing from ours: " << sfen << " depth " << depth << " move "
                      << usi << " fsf " << fsf_count;
      continue;
    }
    Move m = it->second;
    pos.do_move(m);
    uint64_t ours = perft(pos, depth - 1);
    uint64_t excl = excluded_below(pos, depth - 1);
    pos.undo_move(m);
    if (fsf_count == ours + excl) {
      if (excl == 0) continue;
      ++st.explained;
      ++st.explained_by_depth[depth];
      st.excluded += excl;
      continue;
    }
    if (st.note_difference())
      ADD_FAILURE() << "perft disagreement: " << sfen << " depth " << depth << " move " << usi
                    << " fsf " << fsf_count << " ours " << ours << " pawn-drop mates " << excl;
  }
  for (const auto& [usi, m] : ours_moves)
    if (!theirs->count(usi)) {
      if (st.note_difference())
        ADD_FAILURE() << "our move missing from FSF: " << sfen << " depth " << depth << " move "
                      << usi;
    }
}

void report(const char* what, const Stats& st, double seconds) {
  std::printf(
      "[ fsf      ] %s: %d positions, %d perft comparisons (depth 2/3/4: %d/%d/%d), %d root "
      "moves, %.1f s\n"
      "[ fsf      ]   FSF counted more under %d root moves (depth 2/3/4: %d/%d/%d): %llu leaves, "
      "%s explained by pawn-drop mates; %d FSF-only root moves, all pawn-drop mates; "
      "%d unexplained differences\n",
      what, st.distinct, st.positions, st.by_depth[2], st.by_depth[3], st.by_depth[4],
      st.root_moves, seconds, st.explained, st.explained_by_depth[2], st.explained_by_depth[3],
      st.explained_by_depth[4], static_cast<unsigned long long>(st.excluded),
      st.unexplained ? "those" : "all", st.root_drop_mates, st.unexplained);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Move random_move(const Position& pos, Rng& rng) {
  MoveList list;
  generate_legal(pos, list);
  return list.size ? list.moves[rng.below(uint32_t(list.size))] : MOVE_NONE;
}

}  // namespace

TEST(FsfAgreement, ShogiVectors) {
  auto oracle = fairy_stockfish_oracle();
  if (!oracle) GTEST_SKIP() << "fairy-stockfish not found (set FUSEKILAB_FSF)";
  UsiEngine fsf(*oracle);
  ASSERT_NO_THROW(fsf.start()) << "could not start " << oracle->path << " in USI mode";
  auto t0 = std::chrono::steady_clock::now();
  struct Case {
    const char* sfen;
    int depth;
  };
  const Case cases[] = {
      {"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", 3},
      {"l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", 3},
      {"R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 2},
      {"k+n7/sg7/9/9/9/9/+r5K1g/7L1/2LN1R1+Bb b RBGSNLP 1", 3},
      {"9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1", 2},
      {"7lk/9/8S/9/9/9/9/7L1/8K b P 1", 2},
      {"7lk/9/8S/9/9/9/9/7L1/8K b P 1", 4},
      {"7lk/9/8S/9/9/9/9/7L1/8K w P 1", 3},
      {"7lk/9/8S/9/9/9/9/7L1/8K w P 1", 4},
      {"+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200", 2},
  };
  Stats st;
  for (const Case& c : cases)
    compare(fsf, Position::from_sfen(c.sfen, RuleSet::Shogi), c.depth, st);
  report("shogi vectors", st, seconds_since(t0));
  // The pawn-drop-mate vector must actually exercise the explanation.
  EXPECT_GT(st.root_drop_mates, 0);
  EXPECT_GT(st.explained, 0);
  EXPECT_EQ(st.unexplained, 0);
}

TEST(FsfAgreement, RandomPlacementGames) {
  auto oracle = fairy_stockfish_oracle();
  if (!oracle) GTEST_SKIP() << "fairy-stockfish not found (set FUSEKILAB_FSF)";
  UsiEngine fsf(*oracle);
  ASSERT_NO_THROW(fsf.start()) << "could not start " << oracle->path << " in USI mode";
  auto t0 = std::chrono::steady_clock::now();

  const RuleSet rule_sets[] = {RuleSet::Balance, RuleSet::BalanceV1, RuleSet::Fuseki};
  constexpr int kGamesPerRuleSet = 100;
  constexpr int kDepth4Every = 20;  // every position at depth 2 and 3, every 20th also at 4
  Stats st;
  int games = 0, ruled41 = 0, finished = 0, index = 0;
  for (int ri = 0; ri < 3; ++ri) {
    for (int g = 0; g < kGamesPerRuleSet; ++g) {
      Rng rng(Rng::derive(0xF5F'A6EE, uint64_t(ri), uint64_t(g)));
      Position pos = Position::start(rule_sets[ri]);
      while (pos.in_placement()) {
        Move m = random_move(pos, rng);
        ASSERT_NE(m, MOVE_NONE) << "no legal placement in " << pos.sfen();
        pos.do_move(m);
      }
      if (pos.ruling41()) {
        ++ruled41;
        continue;
      }
      ++games;
      // The post-placement position, then three later ones along one random line.
      int stops[3] = {1 + int(rng.below(10)), 11 + int(rng.below(10)), 21 + int(rng.below(10))};
      std::vector<Position> snapshots{pos};
      int played = 0;
      for (int stop : stops) {
        bool over = false;
        while (played < stop) {
          Move m = random_move(pos, rng);
          if (m == MOVE_NONE) {
            over = true;
            break;
          }
          pos.do_move(m);
          ++played;
        }
        snapshots.push_back(pos);
        if (over) {
          ++finished;
          break;
        }
      }
      for (const Position& p : snapshots) {
        // The standard SFEN read as plain shogi must give the same tree.
        Position plain = Position::from_sfen(p.sfen(), RuleSet::Shogi);
        Position copy = p;
        ASSERT_EQ(perft(copy, 2), perft(plain, 2)) << p.sfen();
        compare(fsf, p, 2, st);
        compare(fsf, p, 3, st);
        if (index++ % kDepth4Every == 0) compare(fsf, p, 4, st);
        if (HasFatalFailure()) return;
      }
    }
  }
  std::printf(
      "[ fsf      ] %d placement games played to ply 40 (%d skipped: move-41 ruling), "
      "%d ended during the random continuation\n",
      games + ruled41, ruled41, finished);
  report("random placement games", st, seconds_since(t0));
  EXPECT_GE(st.distinct, 300);
  EXPECT_EQ(st.unexplained, 0);
}
