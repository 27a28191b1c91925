// SFEN reading, writing and validation. During placement the hand holds the undropped pieces,
// kings included; the move number is not trusted there (the ply is the number of pieces placed).
#include <cctype>
#include <charconv>
#include <sstream>
#include <vector>

#include "rules/movegen.h"
#include "rules/notation.h"
#include "rules/position.h"

namespace fuseki {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

PieceType type_from_letter(const Variant& v, char upper) {
  for (int pt = PAWN; pt <= KING; ++pt)
    if (v.exists[pt] && v.letter[pt] == upper) return PieceType(pt);
  return NO_PIECE_TYPE;
}

[[noreturn]] void fail(const std::string& what) { throw RulesError("bad SFEN: " + what); }

// Fairy-Stockfish's FEN for drop variants, "board[hand] side [castling ep] halfmove fullmove"
// (the seed's Yari start: "rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR[-] w 0 1"), as our SFEN.
// Its board rows and letters are ours (first row at the top, uppercase = the first player), but
// the first player is "w" and the move number counts full moves.
std::string fsf_fen_as_sfen(const std::vector<std::string_view>& fields) {
  auto bad = [](const std::string& what) -> RulesError { return RulesError("bad FEN: " + what); };
  std::string_view board = fields[0];
  size_t open = board.find('[');
  if (board.back() != ']') throw bad("the hand '[...]' must end the board field");
  std::string_view hand = board.substr(open + 1, board.size() - open - 2);
  if (hand.find_first_of("[]") != std::string_view::npos) throw bad("malformed hand brackets");
  if (hand.empty()) hand = "-";
  if (fields.size() < 2) throw bad("no side to move");
  std::string side;
  if (fields[1] == "w")
    side = "b";
  else if (fields[1] == "b")
    side = "w";
  else
    throw bad("side to move '" + std::string(fields[1]) + "' is neither 'w' nor 'b'");
  if (fields.size() > 6) throw bad("too many fields");
  for (size_t i = 2; i + 2 < fields.size(); ++i)  // castling, en passant: '-' in drop variants
    if (fields[i] != "-")
      throw bad("castling / en passant field '" + std::string(fields[i]) + "' is not '-'");
  int fullmove = 1;
  if (fields.size() >= 3) {
    std::string_view last = fields.back();
    auto [p, ec] = std::from_chars(last.data(), last.data() + last.size(), fullmove);
    if (ec != std::errc() || p != last.data() + last.size() || fullmove < 1)
      throw bad("full move number '" + std::string(last) + "' is not a positive integer");
  }
  int ply = 2 * (fullmove - 1) + (side == "w" ? 1 : 0);
  return std::string(board.substr(0, open)) + " " + side + " " + std::string(hand) + " " +
         std::to_string(ply + 1);
}

}  // namespace

Position Position::from_sfen(std::string_view sfen, RuleSet rules) {
  Position pos(rules);
  const Variant& v = *pos.var_;
  std::vector<std::string_view> fields;
  for (std::string_view f : split(sfen, ' '))
    if (!f.empty()) fields.push_back(f);
  if (fields.empty()) fail("empty string");
  if (fields[0].find('[') != std::string_view::npos)
    return from_sfen(fsf_fen_as_sfen(fields), rules);
  if (fields.size() < 3 || fields.size() > 4)
    fail("expected 3 or 4 fields (board, side, hand, move number), got " +
         std::to_string(fields.size()));

  // Board: ranks a..i from the top, each listed from the highest file down to file 1.
  std::vector<std::string_view> rows = split(fields[0], '/');
  if (rows.size() != RANK_NB)
    fail("board has " + std::to_string(rows.size()) + " ranks, expected " +
         std::to_string(RANK_NB));
  for (int r = 0; r < RANK_NB; ++r) {
    int file = v.files - 1;  // file index, counting down
    bool plus = false;
    for (char ch : rows[r]) {
      std::string where = "rank " + std::string(1, char('a' + r));
      if (ch == '+') {
        if (plus) fail("'++' in " + where);
        plus = true;
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(ch))) {
        if (plus) fail("'+' before a digit in " + where);
        int n = ch - '0';
        if (n < 1 || file + 1 < n)
          fail(where + " has more than " + std::to_string(v.files) + " squares");
        file -= n;
        continue;
      }
      PieceType pt = type_from_letter(v, char(std::toupper(static_cast<unsigned char>(ch))));
      if (pt == NO_PIECE_TYPE) fail("unknown piece '" + std::string(1, ch) + "' in " + where);
      if (plus) {
        if (!v.can_promote[pt])
          fail("piece '" + std::string(1, ch) + "' cannot promote (" + where + ")");
        pt = promoted(pt);
        plus = false;
      }
      if (file < 0) fail(where + " has more than " + std::to_string(v.files) + " squares");
      Color c = std::isupper(static_cast<unsigned char>(ch)) ? BLACK : WHITE;
      pos.put_piece(make_piece(c, pt), make_square(file, r));
      --file;
    }
    if (plus) fail("'+' at the end of rank " + std::string(1, char('a' + r)));
    if (file != -1)
      fail("rank " + std::string(1, char('a' + r)) + " has " + std::to_string(v.files - 1 - file) +
           " squares, expected " + std::to_string(v.files));
  }

  if (fields[1] == "b")
    pos.stm_ = BLACK;
  else if (fields[1] == "w")
    pos.stm_ = WHITE;
  else
    fail("side to move '" + std::string(fields[1]) + "' is neither 'b' nor 'w'");

  if (fields[2] != "-") {
    int count = 0;
    bool have_count = false;
    for (char ch : fields[2]) {
      if (std::isdigit(static_cast<unsigned char>(ch))) {
        count = count * 10 + (ch - '0');
        have_count = true;
        if (count > 40) fail("hand count too large in '" + std::string(fields[2]) + "'");
        continue;
      }
      PieceType pt = type_from_letter(v, char(std::toupper(static_cast<unsigned char>(ch))));
      if (pt == NO_PIECE_TYPE) fail("unknown piece '" + std::string(1, ch) + "' in hand");
      if (have_count && count == 0) fail("hand count 0 for '" + std::string(1, ch) + "'");
      Color c = std::isupper(static_cast<unsigned char>(ch)) ? BLACK : WHITE;
      int n = pos.hand_[c][pt] + (have_count ? count : 1);
      if (n > 20) fail("too many '" + std::string(1, ch) + "' in hand");
      pos.set_hand(c, pt, n);
      count = 0;
      have_count = false;
    }
    if (have_count) fail("hand '" + std::string(fields[2]) + "' ends with a count");
  }

  int move_number = 1;
  if (fields.size() == 4) {
    auto [p, ec] =
        std::from_chars(fields[3].data(), fields[3].data() + fields[3].size(), move_number);
    if (ec != std::errc() || p != fields[3].data() + fields[3].size() || move_number < 1)
      fail("move number '" + std::string(fields[3]) + "' is not a positive integer");
  }
  if (pos.stm_ == WHITE) pos.key_ ^= side_key();

  // During placement the ply is the number of pieces placed; the move number is ignored.
  int on_board = popcount(pos.pieces());
  if (pos.info_->placement && move_number <= PLACEMENT_PLIES && on_board <= PLACEMENT_PLIES)
    pos.ply_ = on_board;
  else
    pos.ply_ = move_number - 1;
  pos.validate();
  return pos;
}

void Position::validate() const {
  const Variant& v = *var_;
  for (int c = 0; c < COLOR_NB; ++c) {
    std::string side = c == BLACK ? "Sente" : "Gote";
    for (int pt : {PAWN, LANCE, KNIGHT})
      if (v.exists[pt] && (pieces(Color(c), PieceType(pt)) & v.dead[c][pt]))
        throw RulesError("bad SFEN: " + side + " '" + v.letter[pt] + "' on " +
                         square_name(lsb(pieces(Color(c), PieceType(pt)) & v.dead[c][pt])) +
                         " could never move");
    for (int f = 0; f < v.files; ++f)
      if (more_than_one(pieces(Color(c), PAWN) & v.file_bb[f]))
        throw RulesError("bad SFEN: two " + side + " pawns on file " + std::to_string(f + 1) +
                         " (nifu)");
    if (popcount(pieces(Color(c), KING)) > 1)
      throw RulesError("bad SFEN: " + side + " has two kings");
  }
  if (in_placement())
    validate_placement();
  else
    validate_play();
}

void Position::validate_placement() const {
  const Variant& v = *var_;
  for (int c = 0; c < COLOR_NB; ++c) {
    std::string side = c == BLACK ? "Sente" : "Gote";
    Bitboard own = by_color_[c];
    Bitboard outside = own & ~v.camp[c];
    if (outside)
      throw RulesError("bad SFEN: during placement " + side + "'s piece on " +
                       square_name(lsb(outside)) + " is outside its camp");
    for (int pt = PRO_PAWN; pt < PIECE_TYPE_NB; ++pt)
      if (pieces(Color(c), PieceType(pt)))
        throw RulesError("bad SFEN: promoted piece on " +
                         square_name(lsb(pieces(Color(c), PieceType(pt)))) + " during placement");
    for (int pt = PAWN; pt <= KING; ++pt) {
      if (!v.exists[pt]) continue;
      int n = hand_[c][pt] + popcount(pieces(Color(c), PieceType(pt)));
      if (n != v.per_side[pt])
        throw RulesError("bad SFEN: " + side + " has " + std::to_string(n) + " of '" +
                         v.letter[pt] + "' on board and in hand during placement, expected " +
                         std::to_string(v.per_side[pt]));
    }
    Bitboard non_pawns = own & ~pieces(PAWN);
    for (int f = 0; f < v.files; ++f)
      if (popcount(non_pawns & v.file_bb[f]) >= 4)
        throw RulesError("bad SFEN: file " + std::to_string(f + 1) + " holds four " + side +
                         " non-pawns; placement could not go on (file-fill ban)");
  }
  int sente_placed = popcount(by_color_[BLACK]), gote_placed = popcount(by_color_[WHITE]);
  if (sente_placed != (ply_ + 1) / 2 || gote_placed != ply_ / 2)
    throw RulesError("bad SFEN: Sente has placed " + std::to_string(sente_placed) +
                     " pieces and Gote " + std::to_string(gote_placed) +
                     ", but the sides take turns from Sente");
  if (stm_ != (ply_ % 2 == 0 ? BLACK : WHITE))
    throw RulesError("bad SFEN: " + std::to_string(ply_) + " pieces placed but " +
                     (stm_ == BLACK ? "Sente" : "Gote") + " to move");
  if (info_->balance_kings) {
    bool black_king = king_[BLACK] != SQ_NONE, white_king = king_[WHITE] != SQ_NONE;
    bool ok = ply_ == 0 || (ply_ == 1 ? black_king : black_king && white_king);
    if (!ok)
      throw RulesError("bad SFEN: in Balance Shogi the kings are placed on plies 1 and 2; " +
                       std::to_string(ply_) + " pieces placed without them");
  }
  MoveList legal;
  generate_legal(*this, legal);
  if (legal.size == 0)
    throw RulesError("bad SFEN: no legal placement remains; the position cannot arise in play");
}

void Position::validate_play() const {
  const Variant& v = *var_;
  for (int c = 0; c < COLOR_NB; ++c) {
    std::string side = c == BLACK ? "Sente" : "Gote";
    if (king_[c] == SQ_NONE) throw RulesError("bad SFEN: " + side + " has no king on the board");
    if (hand_[c][KING])
      throw RulesError("bad SFEN: " + side + " holds a king in hand after placement");
  }
  (void)v;
  if (king_attacked(~stm_) && !ruling41())
    throw RulesError(std::string("bad SFEN: the side not to move (") +
                     (stm_ == BLACK ? "Gote" : "Sente") + ") is in check");
}

std::string Position::sfen() const {
  const Variant& v = *var_;
  std::ostringstream out;
  for (int r = 0; r < RANK_NB; ++r) {
    int empty = 0;
    for (int f = v.files - 1; f >= 0; --f) {
      Piece p = board_[make_square(f, r)];
      if (!p) {
        ++empty;
        continue;
      }
      if (empty) out << empty;
      empty = 0;
      PieceType pt = type_of(p);
      if (is_promoted(pt)) out << '+';
      char ch = v.letter[unpromoted(pt)];
      out << (color_of(p) == BLACK ? ch : char(std::tolower(ch)));
    }
    if (empty) out << empty;
    if (r + 1 < RANK_NB) out << '/';
  }
  out << ' ' << (stm_ == BLACK ? 'b' : 'w') << ' ';
  bool any = false;
  for (int c = 0; c < COLOR_NB; ++c) {
    const PieceType order[] = {KING, ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
    for (PieceType pt : order) {
      int n = hand_[c][pt];
      if (!n) continue;
      if (n > 1) out << n;
      char ch = v.letter[pt];
      out << (c == BLACK ? ch : char(std::tolower(ch)));
      any = true;
    }
  }
  if (!any) out << '-';
  out << ' ' << ply_ + 1;
  return out.str();
}

}  // namespace fuseki
