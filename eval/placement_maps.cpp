#include "eval/placement_maps.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace fuseki {

PlacementCounts count_placements(const std::vector<GameRow>& games) {
  PlacementCounts c;
  for (const GameRow& g : games) {
    ++c.games;
    std::istringstream in(g.record);
    for (std::string t; in >> t;) {
      // A drop: kind letter, '*', file digit 1-9, rank letter a-i.
      if (t.size() != 4 || t[1] != '*') continue;
      const char* kind = std::strchr(PlacementCounts::kKinds, t[0]);
      int file = t[2] - '0', rank = t[3] - 'a';
      if (!kind || t[0] == 0 || file < 1 || file > 9 || rank < 0 || rank > 8) continue;
      int side = rank >= 5 ? 0 : rank <= 3 ? 1 : -1;  // Sente's camp f-i, Gote's a-d
      if (side < 0) continue;
      ++c.counts[size_t(side)][size_t(kind - PlacementCounts::kKinds)][size_t(rank * 9 + 9 - file)];
    }
  }
  return c;
}

std::string placement_heatmaps_svg(const PlacementCounts& c, const std::string& title) {
  const int cell = 9, board = 9 * cell, gap = 14, left = 50, top = 34;
  const int width = left + 8 * (board + gap), height = top + 2 * (board + gap + 12) + 10;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
    << "fill=\"white\"/>\n<text x=\"4\" y=\"16\" font-size=\"13\">" << title << " (" << c.games
    << " games; darker: dropped there in more games)</text>\n";
  const char* sides[] = {"Sente", "Gote"};
  for (int side = 0; side < 2; ++side) {
    int y0 = top + side * (board + gap + 12);
    o << "<text x=\"4\" y=\"" << y0 + board / 2 << "\">" << sides[side] << "</text>\n";
    for (int k = 0; k < 8; ++k) {
      int x0 = left + k * (board + gap);
      o << "<text x=\"" << x0 + board / 2 << "\" y=\"" << y0 - 3 << "\" text-anchor=\"middle\">"
        << PlacementCounts::kKinds[k] << "</text>\n";
      for (int sq = 0; sq < 81; ++sq) {
        double share =
            c.games ? double(c.counts[size_t(side)][size_t(k)][size_t(sq)]) / c.games : 0;
        int shade = 255 - int(std::min(1.0, share) * 255 + 0.5);
        char fill[16];
        std::snprintf(fill, sizeof(fill), "#%02x%02xff", shade, shade);
        o << "<rect x=\"" << x0 + (sq % 9) * cell << "\" y=\"" << y0 + (sq / 9) * cell
          << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\"" << fill
          << "\" stroke=\"#ccc\" stroke-width=\"0.5\"><title>" << 9 - sq % 9 << char('a' + sq / 9)
          << ": " << int(share * 1000 + 0.5) / 10.0 << " %</title></rect>\n";
      }
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace fuseki
