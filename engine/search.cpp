#include "engine/search.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/game.h"
#include "rules/movegen.h"

namespace fuseki {
namespace {

enum Bound : uint8_t { BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT };
constexpr int INF = MATE + 1;
constexpr int MATE_BOUND = MATE - MAX_PLY;

// Mate scores are stored relative to the node, read back relative to the root.
int to_tt(int s, int ply) { return s >= MATE_BOUND ? s + ply : s <= -MATE_BOUND ? s - ply : s; }
int from_tt(int s, int ply) { return s >= MATE_BOUND ? s - ply : s <= -MATE_BOUND ? s + ply : s; }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Squares within two steps of each square (the king's neighbourhood), and king-step distances.
struct KingZones {
  Bitboard near2[SQ_MAX];
  uint8_t distance[SQ_MAX][SQ_MAX];
  KingZones() {
    for (Square s = 0; s < SQ_MAX; ++s) {
      near2[s] = 0;
      for (Square t = 0; t < SQ_MAX; ++t) {
        distance[s][t] =
            uint8_t(std::max(std::abs(file_of(s) - file_of(t)), std::abs(rank_of(s) - rank_of(t))));
        if (distance[s][t] <= 2) near2[s] |= square_bb(t);
      }
    }
  }
};
const KingZones kZones;

// Bonus for a piece by its distance to the enemy king (pressure) and to its own (cover).
constexpr int kAttackByDistance[9] = {0, 45, 30, 14, 5, 0, 0, 0, 0};
constexpr int kCoverByDistance[9] = {0, 28, 16, 4, 0, 0, 0, 0, 0};

int side_eval(const Position& pos, Color c) {
  const Variant& v = pos.variant();
  int score = 0;
  for (int i = 0; i < v.board_type_count; ++i) {
    PieceType pt = v.board_types[i];
    score += popcount(pos.pieces(c, pt)) * v.value[pt];
  }
  // Pieces in hand are worth a little more: they can go anywhere.
  for (int i = 0; i < v.hand_type_count; ++i) {
    PieceType pt = v.hand_types[i];
    score += pos.hand(c, pt) * v.value[pt] * 110 / 100;
  }
  // Advanced silvers, golds and pawns press; a pawn on the enemy's side is worth a little more.
  Bitboard advanced = v.promotion_zone[c] |
                      (c == BLACK ? v.rank_bb[3] | v.rank_bb[4] : v.rank_bb[5] | v.rank_bb[4]);
  score += 15 * popcount(pos.pieces(c, SILVER) & advanced) +
           8 * popcount(pos.pieces(c, PAWN) & advanced);
  Square k = pos.king_square(c);
  Square enemy_king = pos.king_square(~c);
  Bitboard non_pawns = pos.pieces(c) & ~pos.pieces(PAWN) & ~pos.pieces(KING);
  for (Bitboard b = non_pawns; b;) {
    Square sq = pop_lsb(b);
    PieceType pt = type_of(pos.piece_on(sq));
    if (enemy_king != SQ_NONE)
      score += kAttackByDistance[kZones.distance[sq][enemy_king]] * (v.strong[pt] ? 2 : 1);
    if (k != SQ_NONE && v.guard[pt]) score += kCoverByDistance[kZones.distance[sq][k]];
  }
  if (k != SQ_NONE) {
    Bitboard around = v.step[c][KING][k];
    Bitboard guards = pos.pieces(c) & around & ~pos.pieces(c, PAWN);
    score += 25 * std::min(popcount(guards), 3);
    Bitboard enemy_near = pos.pieces(~c) & kZones.near2[k];
    score -= 30 * popcount(enemy_near);
    Bitboard strong = 0;
    for (int i = 0; i < v.strong_type_count; ++i) strong |= pos.pieces(v.strong_types[i]);
    score -= 40 * popcount(enemy_near & strong);
    // A king on its own back two ranks is safer than one walking into the open.
    int depth_in_camp = c == BLACK ? rank_of(k) : RANK_NB - 1 - rank_of(k);
    score += 12 * std::min(depth_in_camp, 8) - 60;
    // Enemy pieces in hand are threats near an open king.
    int open = popcount(around & ~pos.pieces());
    int enemy_hand = 0;
    for (int i = 0; i < v.hand_type_count; ++i) enemy_hand += pos.hand(~c, v.hand_types[i]);
    score -= 4 * open * std::min(enemy_hand, 6);
  }
  return score;
}

int capture_value(const Variant& v, Piece p) { return p ? v.value[type_of(p)] + 100 : 0; }

// Static exchange evaluation of a capture on its target square (promotions ignored).
int see(const Position& pos, Move m) {
  const Variant& v = pos.variant();
  Square to = move_to(m), from = move_from(m);
  int gain[40];
  int d = 0;
  gain[0] = capture_value(v, pos.piece_on(to));
  int on_square = v.value[type_of(pos.piece_on(from))];
  Bitboard occ = pos.pieces() ^ square_bb(from);
  Color side = ~pos.side_to_move();
  while (d < 38) {
    Bitboard att = pos.attackers_to(to, side, occ) & occ & pos.pieces(side);
    if (!att) break;
    Square best_sq = SQ_NONE;
    int best_value = 1 << 20;
    for (Bitboard b = att; b;) {
      Square sq = pop_lsb(b);
      PieceType pt = type_of(pos.piece_on(sq));
      int value = pt == KING ? 50000 : v.value[pt];
      if (value < best_value) {
        best_value = value;
        best_sq = sq;
      }
    }
    ++d;
    gain[d] = on_square + 100 - gain[d - 1];
    if (best_value == 50000 &&
        pos.attackers_to(to, ~side, occ ^ square_bb(best_sq)) & occ & pos.pieces(~side)) {
      --d;  // the king may not take a defended piece
      break;
    }
    on_square = best_value;
    occ ^= square_bb(best_sq);
    side = ~side;
  }
  while (d > 0) {
    gain[d - 1] = -std::max(-gain[d - 1], gain[d]);
    --d;
  }
  return gain[0];
}

}  // namespace

int evaluate(const Position& pos) {
  int s = side_eval(pos, BLACK) - side_eval(pos, WHITE);
  return pos.side_to_move() == BLACK ? s : -s;
}

Searcher::Searcher(SearchOptions options) : options_(options) {
  tt_.resize(size_t(1) << options_.tt_log2_entries);
  clear();
}

void Searcher::clear() {
  std::fill(tt_.begin(), tt_.end(), TTEntry{0, 0, 0, BOUND_NONE, MOVE_NONE});
  std::memset(killers_, 0, sizeof(killers_));
  std::memset(history_, 0, sizeof(history_));
}

int Searcher::noisy_eval(const Position& pos) const {
  int e = evaluate(pos);
  if (options_.noise > 0)
    e += int(mix(pos.key() ^ mix(options_.seed)) % uint64_t(2 * options_.noise + 1)) -
         options_.noise;
  return e;
}

bool Searcher::out_of_budget() {
  if (stop_) return true;
  if (limits_.nodes && nodes_ >= limits_.nodes) stop_ = true;
  if (deadline_ > 0 && (nodes_ & 1023) == 0 && now_seconds() >= deadline_) stop_ = true;
  return stop_;
}

bool Searcher::repeated(uint64_t key, int ply) const {
  for (int p = ply - 2; p >= 0; p -= 2)
    if (path_[p] == key) return true;
  size_t n = game_keys_.size();
  for (size_t i = 0; i < std::min<size_t>(n, 24); ++i)
    if (game_keys_[n - 1 - i] == key) return true;
  return false;
}

SearchResult Searcher::search(Position& pos, const SearchLimits& limits,
                              const std::vector<uint64_t>& history) {
  SearchResult result;
  limits_ = limits;
  nodes_ = 0;
  stop_ = false;
  deadline_ = limits.seconds > 0 ? now_seconds() + limits.seconds : 0;
  game_keys_ = history;
  if (check_declaration(pos).valid) {
    result.declare = true;
    return result;
  }
  MoveList root;
  generate_legal(pos, root);
  if (root.size == 0) return result;
  root_best_ = root.moves[0];
  result.best = root_best_;
  int max_depth = limits.depth > 0 ? limits.depth : MAX_PLY - 8;
  for (int depth = 1; depth <= max_depth; ++depth) {
    int score = alpha_beta(pos, depth, 0, -INF, INF);
    if (stop_ && depth > 1) {
      result.best = root_best_;  // the partial iteration searched the old best first
      break;
    }
    result.best = root_best_;
    result.score = score;
    result.depth = depth;
    if (stop_ || std::abs(score) >= MATE_BOUND || root.size == 1) break;
  }
  result.nodes = nodes_;
  return result;
}

int Searcher::alpha_beta(Position& pos, int depth, int ply, int alpha, int beta) {
  uint64_t key = pos.key();
  if (ply > 0 && repeated(key, ply)) return 0;
  if (depth <= 0 || ply >= MAX_PLY) return quiesce(pos, ply, 0, alpha, beta);
  ++nodes_;
  if (ply > 0 && out_of_budget()) return 0;
  path_[ply] = key;

  TTEntry& tte = tt_[key & (tt_.size() - 1)];
  Move tt_move = MOVE_NONE;
  if (tte.key == key) {
    tt_move = tte.move;
    if (ply > 0 && tte.depth >= depth) {
      int s = from_tt(tte.score, ply);
      if (tte.bound == BOUND_EXACT || (tte.bound == BOUND_LOWER && s >= beta) ||
          (tte.bound == BOUND_UPPER && s <= alpha))
        return s;
    }
  }

  bool in_check = pos.checkers() != 0;
  bool pv = beta - alpha > 1;
  int static_eval = -INF;  // computed where a pruning rule needs it
  if (!in_check && !pv && ply > 0 && !pos.in_placement()) {
    static_eval = noisy_eval(pos);
    // Reverse futility: far above beta near the leaves, a quiet move will not fall below it.
    if (depth <= 3 && static_eval - 160 * depth >= beta && std::abs(beta) < MATE_BOUND)
      return static_eval;
    // Null move: even passing keeps us above beta; search shallower and trust it.
    if (depth >= 3 && static_eval >= beta && !null_played_[ply - 1]) {
      int r = 2 + depth / 6;
      pos.do_null_move();
      null_played_[ply] = true;
      int score = -alpha_beta(pos, depth - 1 - r, ply + 1, -beta, -beta + 1);
      null_played_[ply] = false;
      pos.undo_null_move();
      if (stop_) return 0;
      if (score >= beta && std::abs(score) < MATE_BOUND) return score;
    }
  }

  MoveList list;
  generate_legal(pos, list);
  if (list.size == 0) return pos.ruling41() ? MATE - ply : -MATE + ply;
  if (in_check && ply < MAX_PLY / 2) ++depth;

  const Variant& v = pos.variant();
  Color us = pos.side_to_move();
  int scores[MAX_MOVES];
  for (int i = 0; i < list.size; ++i) {
    Move m = list.moves[i];
    int s;
    if (m == tt_move)
      s = 1 << 30;
    else if (!is_drop(m) && pos.piece_on(move_to(m)))
      s = see(pos, m) >= 0 ? (1 << 24) + capture_value(v, pos.piece_on(move_to(m))) * 16 -
                                 v.value[type_of(pos.piece_on(move_from(m)))] / 16
                           : (1 << 20) + capture_value(v, pos.piece_on(move_to(m)));
    else if (is_promotion(m))
      s = 1 << 22;
    else if (m == killers_[ply][0])
      s = (1 << 21) + 1;
    else if (m == killers_[ply][1])
      s = 1 << 21;
    else
      s = history_[us][is_drop(m) ? 81 + dropped_type(m) : move_from(m)][move_to(m)];
    scores[i] = s;
  }

  int best = -INF, orig_alpha = alpha;
  Move best_move = MOVE_NONE;
  for (int i = 0; i < list.size; ++i) {
    int pick = i;  // selection sort: moves are tried best-first and most are never reached
    for (int j = i + 1; j < list.size; ++j)
      if (scores[j] > scores[pick]) pick = j;
    std::swap(list.moves[i], list.moves[pick]);
    std::swap(scores[i], scores[pick]);
    Move m = list.moves[i];
    bool quiet = scores[i] < (1 << 21) && !(!is_drop(m) && pos.piece_on(move_to(m)));

    pos.do_move(m);
    bool gives_check = pos.checkers() != 0;
    // Futility: near the leaves, a quiet move that gives no check cannot lift a position this
    // far below alpha.
    if (i > 0 && quiet && !gives_check && depth <= 2 && static_eval > -INF &&
        static_eval + 150 * depth <= alpha && best > -MATE_BOUND) {
      pos.undo_move(m);
      continue;
    }
    int score;
    if (i == 0) {
      score = -alpha_beta(pos, depth - 1, ply + 1, -beta, -alpha);
    } else {
      // Late quiet moves are searched shallower, the later the shallower.
      int reduction = 0;
      if (quiet && !in_check && !gives_check && depth >= 3 && i >= 3)
        reduction = 1 + (i >= 10) + (depth >= 8 && i >= 20);
      reduction = std::max(0, std::min(reduction, depth - 2));
      score = -alpha_beta(pos, depth - 1 - reduction, ply + 1, -alpha - 1, -alpha);
      if (score > alpha && (reduction || score < beta))
        score = -alpha_beta(pos, depth - 1, ply + 1, -beta, -alpha);
    }
    pos.undo_move(m);
    if (stop_) return best > -INF ? best : 0;

    if (score > best) {
      best = score;
      best_move = m;
      if (ply == 0) root_best_ = m;
      if (score > alpha) {
        alpha = score;
        if (alpha >= beta) {
          if (quiet) {
            if (killers_[ply][0] != m) {
              killers_[ply][1] = killers_[ply][0];
              killers_[ply][0] = m;
            }
            int& h = history_[us][is_drop(m) ? 81 + dropped_type(m) : move_from(m)][move_to(m)];
            h = std::min(h + depth * depth, 1 << 20);
          }
          break;
        }
      }
    }
  }
  tte = {key, int16_t(to_tt(best, ply)), int8_t(depth),
         uint8_t(best >= beta        ? BOUND_LOWER
                 : best > orig_alpha ? BOUND_EXACT
                                     : BOUND_UPPER),
         best_move};
  return best;
}

int Searcher::quiesce(Position& pos, int ply, int qdepth, int alpha, int beta) {
  ++nodes_;
  if (out_of_budget() && ply > 0) return 0;
  bool in_check = pos.checkers() != 0;
  int best = -INF;
  if (!in_check) {
    best = noisy_eval(pos);
    if (best >= beta || ply >= MAX_PLY || qdepth >= 8) return best;
    alpha = std::max(alpha, best);
  }
  MoveList list;
  generate_legal(pos, list);
  if (list.size == 0) return pos.ruling41() ? MATE - ply : -MATE + ply;
  const Variant& v = pos.variant();
  int scores[MAX_MOVES];
  int n = 0;
  for (int i = 0; i < list.size; ++i) {
    Move m = list.moves[i];
    Piece victim = is_drop(m) ? NO_PIECE : pos.piece_on(move_to(m));
    if (!in_check && (!victim || see(pos, m) < 0)) continue;
    list.moves[n] = m;
    scores[n++] = capture_value(v, victim) * 16 -
                  (is_drop(m) ? 0 : v.value[type_of(pos.piece_on(move_from(m)))] / 16);
  }
  for (int i = 0; i < n; ++i) {
    int pick = i;
    for (int j = i + 1; j < n; ++j)
      if (scores[j] > scores[pick]) pick = j;
    std::swap(list.moves[i], list.moves[pick]);
    std::swap(scores[i], scores[pick]);
    Move m = list.moves[i];
    pos.do_move(m);
    int score = -quiesce(pos, ply + 1, qdepth + 1, -beta, -alpha);
    pos.undo_move(m);
    if (stop_) return best > -INF ? best : 0;
    if (score > best) {
      best = score;
      if (score > alpha) {
        alpha = score;
        if (alpha >= beta) break;
      }
    }
  }
  return best;
}

}  // namespace fuseki
