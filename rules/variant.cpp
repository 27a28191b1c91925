#include "rules/variant.h"

#include <cstring>
#include <initializer_list>
#include <utility>

namespace fuseki {
namespace {

struct PieceSpec {
  PieceType type;
  char letter;
  int value;
  int per_side;
  bool can_promote;
  std::initializer_list<std::pair<int, int>> steps;  // (file delta, rank delta) for Sente
  std::initializer_list<Direction> slides;           // ray directions for Sente
};

const std::initializer_list<std::pair<int, int>> kGoldSteps = {{-1, -1}, {0, -1}, {1, -1},
                                                               {-1, 0},  {1, 0},  {0, 1}};
const std::initializer_list<std::pair<int, int>> kKingSteps = {{-1, -1}, {0, -1}, {1, -1}, {-1, 0},
                                                               {1, 0},   {-1, 1}, {0, 1},  {1, 1}};

void build_geometry(Variant& v) {
  v.squares = v.files * RANK_NB;
  for (Square s = 0; s < v.squares; ++s) {
    v.board |= square_bb(s);
    v.file_bb[file_of(s)] |= square_bb(s);
    v.rank_bb[rank_of(s)] |= square_bb(s);
  }
  for (int r = 0; r < 4; ++r) {
    v.camp[BLACK] |= v.rank_bb[RANK_NB - 1 - r];
    v.camp[WHITE] |= v.rank_bb[r];
  }
  for (Square s = 0; s < v.squares; ++s)
    for (int d = 0; d < DIR_NB; ++d) {
      int f = file_of(s) + DIR_DF[d], r = rank_of(s) + DIR_DR[d];
      while (v.on_board(f, r)) {
        v.ray[d][s] |= square_bb(make_square(f, r));
        f += DIR_DF[d];
        r += DIR_DR[d];
      }
    }
  for (Square a = 0; a < v.squares; ++a)
    for (int d = 0; d < DIR_NB; ++d) {
      Bitboard walked = 0;
      Bitboard r = v.ray[d][a];
      while (r) {
        Square b = dir_ascending(Direction(d)) ? lsb(r) : msb(r);
        r ^= square_bb(b);
        v.between[a][b] = walked;
        v.line[a][b] = v.ray[d][a] | v.ray[opposite(Direction(d))][a] | square_bb(a);
        walked |= square_bb(b);
      }
    }
}

void add_piece(Variant& v, const PieceSpec& p) {
  PieceType pt = p.type;
  v.exists[pt] = true;
  v.letter[pt] = p.letter;
  v.value[pt] = p.value;
  v.per_side[pt] = p.per_side;
  v.can_promote[pt] = p.can_promote;
  for (Square s = 0; s < v.squares; ++s)
    for (auto [df, dr] : p.steps) {
      // Gote's movement is Sente's turned half a circle.
      if (v.on_board(file_of(s) + df, rank_of(s) + dr))
        v.step[BLACK][pt][s] |= square_bb(make_square(file_of(s) + df, rank_of(s) + dr));
      if (v.on_board(file_of(s) - df, rank_of(s) - dr))
        v.step[WHITE][pt][s] |= square_bb(make_square(file_of(s) - df, rank_of(s) - dr));
    }
  for (Direction d : p.slides) {
    v.slides[BLACK][pt] |= uint8_t(1 << d);
    v.slides[WHITE][pt] |= uint8_t(1 << opposite(d));
  }
  for (int c = 0; c < COLOR_NB; ++c)
    for (Square s = 0; s < v.squares; ++s)
      if (!v.attacks(Color(c), pt, s, 0)) v.dead[c][pt] |= square_bb(s);
}

void finish(Variant& v) {
  for (int pt = 1; pt < PIECE_TYPE_NB; ++pt) {
    if (!v.exists[pt]) continue;
    if (pt != KING) v.board_types[v.board_type_count++] = PieceType(pt);
    v.step_class[pt] = -1;
    bool has_steps = false;
    for (Square s = 0; s < v.squares; ++s) has_steps |= v.step[BLACK][pt][s] != 0;
    if (!has_steps) continue;  // a pure slider: found by the ray scan alone
    int cls = -1;
    for (int k = 0; k < v.step_class_count && cls < 0; ++k)
      if (!std::memcmp(v.step[BLACK][pt], v.step[BLACK][v.step_class_type[k]],
                       sizeof(v.step[BLACK][pt])))
        cls = k;
    if (cls < 0) {
      cls = v.step_class_count++;
      v.step_class_type[cls] = PieceType(pt);
    }
    v.step_class[pt] = cls;
  }
  for (PieceType pt : {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN})
    if (v.exists[pt]) v.hand_types[v.hand_type_count++] = pt;
  for (int pt = 0; pt < PIECE_TYPE_NB; ++pt)
    if (v.strong[pt]) v.strong_types[v.strong_type_count++] = PieceType(pt);
}

void set_roles(Variant& v, std::initializer_list<PieceType> strong,
               std::initializer_list<PieceType> guards) {
  for (PieceType pt : strong) v.strong[pt] = true;
  for (PieceType pt : guards) v.guard[pt] = true;
}

void make_shogi(Variant& v) {
  v.name = "shogi";
  v.files = 9;
  build_geometry(v);
  for (int r = 0; r < 3; ++r) {
    v.promotion_zone[BLACK] |= v.rank_bb[r];
    v.promotion_zone[WHITE] |= v.rank_bb[RANK_NB - 1 - r];
  }
  const auto orth = {DIR_N, DIR_S, DIR_E, DIR_W};
  const auto diag = {DIR_NE, DIR_NW, DIR_SE, DIR_SW};
  add_piece(v, {PAWN, 'P', 100, 9, true, {{0, -1}}, {}});
  add_piece(v, {LANCE, 'L', 350, 2, true, {}, {DIR_N}});
  add_piece(v, {KNIGHT, 'N', 400, 2, true, {{-1, -2}, {1, -2}}, {}});
  add_piece(v, {SILVER, 'S', 550, 2, true, {{-1, -1}, {0, -1}, {1, -1}, {-1, 1}, {1, 1}}, {}});
  add_piece(v, {GOLD, 'G', 600, 2, false, kGoldSteps, {}});
  add_piece(v, {BISHOP, 'B', 850, 1, true, {}, diag});
  add_piece(v, {ROOK, 'R', 1000, 1, true, {}, orth});
  add_piece(v, {KING, 'K', 0, 1, false, kKingSteps, {}});
  add_piece(v, {PRO_PAWN, 'P', 600, 0, false, kGoldSteps, {}});
  add_piece(v, {PRO_LANCE, 'L', 600, 0, false, kGoldSteps, {}});
  add_piece(v, {PRO_KNIGHT, 'N', 600, 0, false, kGoldSteps, {}});
  add_piece(v, {PRO_SILVER, 'S', 600, 0, false, kGoldSteps, {}});
  add_piece(v, {HORSE, 'B', 1100, 0, false, {{0, -1}, {0, 1}, {-1, 0}, {1, 0}}, diag});
  add_piece(v, {DRAGON, 'R', 1300, 0, false, {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}}, orth});
  set_roles(v, {ROOK, HORSE, DRAGON}, {GOLD, SILVER, PRO_PAWN, PRO_LANCE, PRO_KNIGHT, PRO_SILVER});
  v.pawn_drop_mate_illegal = true;
  v.start_sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
  finish(v);
}

// Yari Shogi (Fairy-Stockfish's built-in `yarishogi`): 7 files x 9 ranks; Betza moves from
// Sente's side: yari knight fRffN, yari bishop fFfR, yari rook frlR; promoted: pawn -> yari
// silver fKbR, knight and bishop -> yari gold WfFbR, rook -> rook. Pawn-drop mate is allowed.
void make_yari(Variant& v) {
  v.name = "yari";
  v.files = 7;
  build_geometry(v);
  for (int r = 0; r < 3; ++r) {
    v.promotion_zone[BLACK] |= v.rank_bb[r];
    v.promotion_zone[WHITE] |= v.rank_bb[RANK_NB - 1 - r];
  }
  const std::initializer_list<std::pair<int, int>> forward_diagonals = {{-1, -1}, {1, -1}};
  const std::initializer_list<std::pair<int, int>> yari_gold = {{0, -1}, {0, 1},   {-1, 0},
                                                                {1, 0},  {-1, -1}, {1, -1}};
  add_piece(v, {PAWN, 'P', 100, 7, true, {{0, -1}}, {}});
  add_piece(v, {KNIGHT, 'N', 400, 2, true, {{-1, -2}, {1, -2}}, {DIR_N}});
  add_piece(v, {BISHOP, 'B', 450, 2, true, forward_diagonals, {DIR_N}});
  add_piece(v, {ROOK, 'R', 700, 2, true, {}, {DIR_N, DIR_E, DIR_W}});
  add_piece(v, {KING, 'K', 0, 1, false, kKingSteps, {}});
  add_piece(v, {PRO_PAWN, 'P', 500, 0, false, {{-1, -1}, {0, -1}, {1, -1}}, {DIR_S}});
  add_piece(v, {PRO_KNIGHT, 'N', 600, 0, false, yari_gold, {DIR_S}});
  add_piece(v, {HORSE, 'B', 600, 0, false, yari_gold, {DIR_S}});
  add_piece(v, {DRAGON, 'R', 1000, 0, false, {}, {DIR_N, DIR_S, DIR_E, DIR_W}});
  // The rooks attack; the yari silver and the two yari golds (in the HORSE slot: the promoted
  // yari bishop) guard.
  set_roles(v, {ROOK, DRAGON}, {PRO_PAWN, PRO_KNIGHT, HORSE});
  v.pawn_drop_mate_illegal = false;
  v.repetition_limit = 3;  // 3-fold repetition is a draw; perpetual check loses
  v.entering_king_declaration = false;
  v.start_sfen = "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1";
  finish(v);
}

}  // namespace

const Variant& yari_variant() {
  static const Variant* v = [] {
    auto* built = new Variant;
    make_yari(*built);
    return built;
  }();
  return *v;
}

const Variant& shogi_variant() {
  // Built on the heap once: the tables are too big for a thread's stack.
  static const Variant* v = [] {
    auto* built = new Variant;
    make_shogi(*built);
    return built;
  }();
  return *v;
}

}  // namespace fuseki
