// report.html: the king-pair table as players read it, all pictures inline SVG (no scripts, no
// network): each camp's king values on a board diagram, the 36 x 36 map of Sente's score with
// every square labelled, the band as a list, and the comparison with an earlier table.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

#include "eval/chart.h"
#include "eval/table_output.h"
#include "rules/notation.h"

namespace fuseki {
namespace {

__attribute__((format(printf, 1, 2))) std::string fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  return buf;
}

// Blue below 0.5, white at 0.5, red above (for Sente's score: blue Gote favoured, red Sente).
std::string colour(double v) {
  v = std::clamp(v, 0.0, 1.0);
  int r, g, b;
  if (v < 0.5) {
    double t = v / 0.5;
    r = int(40 + 215 * t), g = int(90 + 165 * t), b = 255;
  } else {
    double t = (v - 0.5) / 0.5;
    r = 255, g = int(255 - 180 * t), b = int(255 - 200 * t);
  }
  return fmt("#%02x%02x%02x", r, g, b);
}

// A horizontal colour bar: `lo`..`hi` on the colour scale, ticks (colour value, label).
std::string legend_bar(double x, double y, double width, double lo, double hi,
                       const std::vector<std::pair<double, std::string>>& ticks,
                       const std::string& caption) {
  std::ostringstream o;
  o << "<g class=\"legend\" font-size=\"11\">";
  const int steps = 40;
  for (int i = 0; i < steps; ++i)
    o << fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"10\" fill=\"%s\"/>",
             x + width * i / steps, y, width / steps + 0.3,
             colour(lo + (hi - lo) * (i + 0.5) / steps).c_str());
  o << fmt(
      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"none\" "
      "stroke=\"#888\" stroke-width=\"0.5\"/>",
      x, y, width);
  for (const auto& [v, label] : ticks) {
    double tx = x + width * (v - lo) / (hi - lo);
    o << fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>", tx, y + 10,
             tx, y + 14)
      << fmt("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", tx, y + 25,
             html_escape(label).c_str());
  }
  o << fmt("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text></g>\n", x + width / 2,
           y - 5, html_escape(caption).c_str());
  return o.str();
}

// One camp as a 9 x 4 board diagram: files 9..1 from left to right, ranks top to bottom, each
// square coloured and labelled with its value in points (scale +-limit).
std::string camp_board(const std::string& id, const std::string& title,
                       const std::array<double, KING_SQUARES>& pt, bool sente, double limit) {
  const double cell = 46, left = 14, top = 44;
  std::ostringstream o;
  o << fmt("<svg id=\"%s\" class=\"board\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
           "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
           id.c_str(), left + 9 * cell + 30, top + 4 * cell + 12)
    << fmt("<text x=\"%.0f\" y=\"16\" font-size=\"14\">%s</text>\n", left,
           html_escape(title).c_str());
  for (int f = 9; f >= 1; --f)
    o << fmt("<text class=\"file-label\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d</text>\n",
             left + (9 - f + 0.5) * cell, top - 6, f);
  for (int row = 0; row < 4; ++row) {
    const int rank = sente ? 5 + row : row;  // rank index, a = 0
    o << fmt("<text class=\"rank-label\" x=\"%.1f\" y=\"%.1f\">%c</text>\n", left + 9 * cell + 8,
             top + (row + 0.5) * cell + 4, char('a' + rank));
  }
  for (int i = 0; i < KING_SQUARES; ++i) {
    const Square sq = sente ? sente_king_square(i) : gote_king_square(i);
    const int row = sente ? rank_of(sq) - 5 : rank_of(sq);
    const double x = left + (8 - file_of(sq)) * cell, y = top + row * cell;
    const double value = pt[size_t(i)];
    o << fmt(
        "<g class=\"king-square\" data-square=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" "
        "width=\"%.0f\" height=\"%.0f\" fill=\"%s\" stroke=\"#555\" stroke-width=\"0.8\"/>"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+.1f</text><title>%s: %+.2f "
        "points</title></g>\n",
        square_name(sq).c_str(), x, y, cell, cell, colour(0.5 + 0.5 * value / limit).c_str(),
        x + cell / 2, y + cell / 2 + 4, value, square_name(sq).c_str(), value);
  }
  o << "</svg>\n";
  return o.str();
}

std::string king_values_section(const TableFit& fit) {
  const KingSquareValues pt = king_values_pt(fit);
  double largest = 0;
  for (int i = 0; i < KING_SQUARES; ++i)
    largest = std::max({largest, std::abs(pt.sente[size_t(i)]), std::abs(pt.gote[size_t(i)])});
  const double limit = std::max(10.0, 10 * std::ceil(largest / 10));  // whole tens of points
  std::ostringstream o;
  o << "<section id=\"kings\"><h2>King values by square</h2>\n<p>Per king square: Sente's score "
       "with the "
       "king there, averaged over the other king's 36 squares, less the mean over all pairs, in "
       "percentage points (table.json's <code>black_king_value_pt</code> and "
       "<code>white_king_value_pt</code>). Both boards are seen from Sente's side: red, Sente "
       "scores more; blue, Gote does.</p>\n<div class=\"boards\">"
    << camp_board("board-gote", "Gote's king (ranks a-d)", pt.gote, false, limit)
    << camp_board("board-sente", "Sente's king (ranks f-i)", pt.sente, true, limit) << "</div>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" height=\"56\" "
       "font-family=\"sans-serif\" font-size=\"11\">"
    << legend_bar(30, 20, 360, 0, 1,
                  {{0, fmt("%+.0f", -limit)},
                   {0.25, fmt("%+.0f", -limit / 2)},
                   {0.5, "0"},
                   {0.75, fmt("%+.0f", limit / 2)},
                   {1, fmt("%+.0f pt", limit)}},
                  "Gote better  <  Sente's score, points  >  Sente better")
    << "</svg></section>\n";
  return o.str();
}

// Squares in the order a diagram reads them: ranks from the top, files 9..1 within a rank.
std::vector<int> sente_rows() {
  std::vector<int> order;
  for (int rank = 5; rank <= 8; ++rank)
    for (int file = 8; file >= 0; --file) order.push_back((rank - 5) * 9 + file);
  return order;
}
std::vector<int> gote_columns() {
  std::vector<int> order;
  for (int rank = 0; rank <= 3; ++rank)
    for (int file = 8; file >= 0; --file) order.push_back((3 - rank) * 9 + file);
  return order;
}

struct MapLegend {
  double lo = 0, hi = 1;  // the part of the colour scale used
  std::vector<std::pair<double, std::string>> ticks;
  std::string caption;
};

// The 36 x 36 pairs: rows Sente's king square, columns Gote's, every square labelled on both
// axes; `values` on the colour scale; band pairs outlined.
std::string pair_map(const std::string& id, const std::string& title,
                     const std::vector<double>& values, const MapLegend& legend,
                     const std::vector<int>& band, const std::vector<std::string>& tips) {
  const double cell = 15, left = 62, top = 74, size = KING_SQUARES * cell;
  const std::vector<int> rows = sente_rows(), columns = gote_columns();
  std::ostringstream o;
  o << fmt("<svg id=\"%s\" class=\"pair-map\" xmlns=\"http://www.w3.org/2000/svg\" "
           "width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"9\">\n",
           id.c_str(), left + size + 250, top + size + 20)
    << fmt("<text x=\"%.0f\" y=\"14\" font-size=\"13\">%s</text>\n", left,
           html_escape(title).c_str())
    << fmt("<text x=\"%.0f\" y=\"32\" font-size=\"11\">Gote's king &#8594;</text>\n", left)
    << fmt("<text transform=\"translate(12,%.0f) rotate(-90)\" font-size=\"11\" "
           "text-anchor=\"end\">&#8592; Sente's king</text>\n",
           top);
  for (size_t c = 0; c < columns.size(); ++c)
    o << fmt("<text class=\"col-label\" transform=\"translate(%.1f,%.0f) rotate(-90)\">%s</text>\n",
             left + (double(c) + 0.5) * cell + 3, top - 4,
             square_name(gote_king_square(columns[c])).c_str());
  for (size_t r = 0; r < rows.size(); ++r) {
    o << fmt("<text class=\"row-label\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
             left - 4, top + (double(r) + 0.5) * cell + 3,
             square_name(sente_king_square(rows[r])).c_str());
    for (size_t c = 0; c < columns.size(); ++c) {
      const size_t p = size_t(rows[r] * KING_SQUARES + columns[c]);
      o << fmt(
          "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\" "
          "stroke=\"#ddd\" stroke-width=\"0.5\"><title>%s</title></rect>\n",
          left + double(c) * cell, top + double(r) * cell, cell, cell, colour(values[p]).c_str(),
          html_escape(tips[p]).c_str());
    }
  }
  for (int k = 1; k < 4; ++k)  // rank boundaries
    o << fmt(
        "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#666\"/>"
        "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#666\"/>\n",
        left, top + 9 * k * cell, left + size, top + 9 * k * cell, left + 9 * k * cell, top,
        left + 9 * k * cell, top + size);
  std::vector<size_t> row_of(KING_SQUARES), column_of(KING_SQUARES);
  for (size_t i = 0; i < rows.size(); ++i) row_of[size_t(rows[i])] = i;
  for (size_t i = 0; i < columns.size(); ++i) column_of[size_t(columns[i])] = i;
  for (int p : band)  // drawn last, so no neighbour covers the outline
    o << fmt(
        "<rect class=\"band-mark\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
        "fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\n",
        left + double(column_of[size_t(p % KING_SQUARES)]) * cell,
        top + double(row_of[size_t(p / KING_SQUARES)]) * cell, cell, cell);
  const double lx = left + size + 30;
  o << legend_bar(lx, top + 20, 200, legend.lo, legend.hi, legend.ticks, legend.caption)
    << fmt("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"white\" "
           "stroke=\"black\" stroke-width=\"2\"/><text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">band "
           "pair "
           "(%zu)</text>"
           "\n</svg>\n",
           lx, top + 70, cell, cell, lx + cell + 6, top + 70 + cell - 4, band.size());
  return o.str();
}

std::string pair_tip(const TableReport& r, int p) {
  const PairEstimate& e = r.fit.pairs[size_t(p)];
  return fmt("%s: v %.3f (raw %.3f [%.3f, %.3f], fit %.3f), %d games", pair_key(p).c_str(), e.v,
             e.v_raw, e.low, e.high, e.v_fit, r.tallies[size_t(p)].games);
}

std::string maps_section(const TableReport& r) {
  std::vector<double> v(KING_PAIRS), width(KING_PAIRS);
  std::vector<std::string> tips(KING_PAIRS);
  for (int p = 0; p < KING_PAIRS; ++p) {
    const PairEstimate& e = r.fit.pairs[size_t(p)];
    v[size_t(p)] = e.v;
    width[size_t(p)] = 0.5 + std::min(0.5, e.high - e.low);  // wider interval: redder
    tips[size_t(p)] = pair_tip(r, p);
  }
  MapLegend score{
      0, 1, {{0, "0"}, {0.25, "0.25"}, {0.5, "0.5"}, {0.75, "0.75"}, {1, "1"}}, "Sente's score v"};
  MapLegend widths{0.5, 1, {{0.5, "0"}, {0.75, "0.25"}, {1, "0.5+"}}, "interval width"};
  std::ostringstream o;
  o << "<section id=\"map\"><h2>Sente's score by king pair</h2>\n<p>Rows: Sente's king square, "
       "columns: "
       "Gote's, each camp read as on the board (ranks from the top, files 9 to 1); blue: Gote "
       "favoured, red: Sente favoured. The "
    << r.band.size() << " pairs closest to 50 % (the band) are outlined.</p>\n"
    << pair_map("map-v", "Sente's score v", v, score, r.band, tips)
    << pair_map("map-width", "Width of the 95 % interval of the games' score (white: narrow)",
                width, widths, r.band, tips)
    << "</section>\n";
  return o.str();
}

// The band list. A pair's second score (PairEstimate::v_eval) adds the columns "v (eval)" and the
// difference; without any, the list shows just v.
std::string band_section(const TableReport& r) {
  const bool with_eval = std::any_of(r.band.begin(), r.band.end(), [&](int p) {
    return r.fit.pairs[size_t(p)].v_eval.has_value();
  });
  std::ostringstream o;
  o << "<section id=\"band\"><h2>The band</h2>\n<p>The " << r.band.size()
    << " pairs closest to 50 %, closest first: the Balance AI draws its kings from these. "
       "v's interval is v &#177; 1.96 standard errors: v leans on the fitted model (the other "
       "pairs' games), so it is narrower than the pair's own games' Wilson interval.</p>\n"
       "<table id=\"band-list\" class=\"list\"><tr><th>#</th><th>pair (Sente, Gote)</th><th>"
    << (with_eval ? "v (games)" : "v")
    << "</th><th>95 % interval</th><th>games</th><th>the games' score [95 % Wilson]</th>"
    << (with_eval ? "<th>v (eval)</th><th>eval &#8722; games</th>" : "") << "</tr>\n";
  int rank = 0;
  for (int p : r.band) {
    const PairEstimate& e = r.fit.pairs[size_t(p)];
    const double low = std::max(0.0, e.v - 1.96 * e.se), high = std::min(1.0, e.v + 1.96 * e.se);
    o << fmt(
        "<tr class=\"band-pair\" data-key=\"%s\"><td>%d</td><td>%s</td><td>%.3f</td>"
        "<td>[%.3f, %.3f]</td><td>%d</td><td>%.3f [%.3f, %.3f]</td>",
        pair_key(p).c_str(), ++rank, pair_key(p).c_str(), e.v, low, high,
        r.tallies[size_t(p)].games, e.v_raw, e.low, e.high);
    if (with_eval && e.v_eval)
      o << fmt("<td>%.3f</td><td>%+.3f</td>", *e.v_eval, *e.v_eval - e.v);
    else if (with_eval)
      o << "<td>&#8211;</td><td>&#8211;</td>";
    o << "</tr>\n";
  }
  o << "</table></section>\n";
  return o.str();
}

struct Comparison {
  std::vector<int> pairs;            // in both tables
  std::vector<double> earlier, now;  // their values
  double mean_abs_change = 0, rms_change = 0, correlation = 0;
};

Comparison compare(const TableReport& r, const KingPairTable& earlier) {
  Comparison c;
  for (int p = 0; p < KING_PAIRS; ++p) {
    const KingPairEntry* e = earlier.find(pair_sente(p), pair_gote(p));
    if (!e) continue;
    c.pairs.push_back(p);
    c.earlier.push_back(e->v);
    c.now.push_back(r.fit.pairs[size_t(p)].v);
  }
  const double n = double(c.pairs.size());
  if (n == 0) return c;
  double mx = 0, my = 0;
  for (size_t i = 0; i < c.pairs.size(); ++i) mx += c.earlier[i] / n, my += c.now[i] / n;
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < c.pairs.size(); ++i) {
    const double dx = c.earlier[i] - mx, dy = c.now[i] - my;
    sxx += dx * dx, syy += dy * dy, sxy += dx * dy;
    c.mean_abs_change += std::abs(c.now[i] - c.earlier[i]) / n;
    c.rms_change += (c.now[i] - c.earlier[i]) * (c.now[i] - c.earlier[i]) / n;
  }
  c.rms_change = std::sqrt(c.rms_change);
  c.correlation = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
  return c;
}

// v (earlier) against v (this table), both 0..1, with the identity line; band pairs highlighted.
std::string scatter_plot(const TableReport& r, const Comparison& c, const std::string& source) {
  const double left = 56, top = 20, side = 420;
  auto px = [&](double v) { return left + v * side; };
  auto py = [&](double v) { return top + (1 - v) * side; };
  std::vector<bool> in_band(KING_PAIRS, false);
  for (int p : r.band) in_band[size_t(p)] = true;
  std::ostringstream o;
  o << fmt(
      "<svg id=\"scatter\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
      left + side + 190, top + side + 50);
  for (int k = 0; k <= 10; ++k) {
    const double v = k / 10.0;
    o << fmt(
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f</text>"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
        px(v), py(0), px(v), py(1), px(0), py(v), px(1), py(v), px(v), py(0) + 16, v, px(0) - 6,
        py(v) + 4, v);
  }
  o << fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
           "stroke=\"#444\"/>\n",
           left, top, side, side)
    << fmt("<line class=\"identity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
           "stroke=\"#444\" stroke-dasharray=\"5,4\"/>\n",
           px(0), py(0), px(1), py(1))
    << fmt("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">v in the earlier table "
           "(%s)</text>\n",
           px(0.5), py(0) + 36, html_escape(source).c_str())
    << fmt("<text transform=\"translate(14,%.1f) rotate(-90)\" text-anchor=\"middle\">v in this "
           "table</text>\n",
           py(0.5));
  for (bool band : {false, true})  // band pairs last, on top
    for (size_t i = 0; i < c.pairs.size(); ++i) {
      const int p = c.pairs[i];
      if (in_band[size_t(p)] != band) continue;
      const char* look = band ? "r=\"3.5\" fill=\"#d62728\" stroke=\"black\" stroke-width=\"0.8\""
                              : "r=\"2\" fill=\"#1f77b4\" fill-opacity=\"0.45\"";
      o << fmt(
          "<circle class=\"pair%s\" data-key=\"%s\" data-earlier=\"%.4f\" data-now=\"%.4f\" "
          "cx=\"%.2f\" cy=\"%.2f\" %s><title>%s: earlier %.3f, now %.3f</title></circle>\n",
          band ? " band" : "", pair_key(p).c_str(), c.earlier[i], c.now[i], px(c.earlier[i]),
          py(c.now[i]), look, pair_key(p).c_str(), c.earlier[i], c.now[i]);
    }
  const double lx = left + side + 16;
  o << fmt(
      "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"3.5\" fill=\"#d62728\" stroke=\"black\" "
      "stroke-width=\"0.8\"/><text x=\"%.0f\" y=\"%.0f\">band pair (this table)</text>\n"
      "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"2\" fill=\"#1f77b4\"/><text x=\"%.0f\" "
      "y=\"%.0f\">other pair</text>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
      "stroke=\"#444\" stroke-dasharray=\"3,2\"/><text x=\"%.0f\" y=\"%.0f\">no change</text>"
      "\n</svg>\n",
      lx + 5, top + 10, lx + 14, top + 14, lx + 5, top + 30, lx + 14, top + 34, lx, top + 50,
      lx + 10, top + 50, lx + 14, top + 54);
  return o.str();
}

std::string comparison_section(const TableReport& r, const KingPairTable& earlier) {
  const Comparison c = compare(r, earlier);
  std::vector<double> diff(KING_PAIRS, 0.5);
  std::vector<std::string> tips(KING_PAIRS);
  for (size_t i = 0; i < c.pairs.size(); ++i) {
    const double d = c.now[i] - c.earlier[i];
    diff[size_t(c.pairs[i])] = 0.5 + d;
    tips[size_t(c.pairs[i])] = fmt("%s: now %.3f, earlier %.3f, change %+.3f",
                                   pair_key(c.pairs[i]).c_str(), c.now[i], c.earlier[i], d);
  }
  MapLegend change{0,
                   1,
                   {{0, "-0.5"}, {0.25, "-0.25"}, {0.5, "0"}, {0.75, "+0.25"}, {1, "+0.5"}},
                   "v now - v earlier"};
  std::ostringstream o;
  o << "<section id=\"compare\"><h2>Change against " << html_escape(earlier.source()) << "</h2>\n"
    << fmt("<p id=\"compare-stats\">%zu pairs in both tables: mean |&#916;v| <b>%.4f</b>, "
           "correlation <b>%.4f</b> (Pearson), RMS change %.4f. Points above the dashed line: "
           "Sente scores more in this table.</p>\n",
           c.pairs.size(), c.mean_abs_change, c.correlation, c.rms_change)
    << scatter_plot(r, c, earlier.source())
    << pair_map("map-change", "v now - v earlier (red: Sente better now)", diff, change, r.band,
                tips)
    << "</section>\n";
  return o.str();
}

// Scoring by evaluation (eval table --score eval|both): what scored the pairs, the calibration
// and, for both, how evaluation and games agree.
std::string scoring_rows(const TableReport& r) {
  if (r.score == "games") return "";
  const EvalCalibration& c = r.calibration;
  std::string o = fmt("<tr><th>scored by</th><td>%s: %ld evaluations at move 41</td></tr>",
                      r.score == "both" ? "evaluation and games" : "evaluation", r.evaluations);
  o += fmt(
      "<tr><th>calibration (%d games)</th><td>P(Sente) = 1 / (1 + exp(&#8722;(%.3f &#177; %.3f + "
      "cp / (%.0f &#177; %.0f))))</td></tr>",
      c.games, c.bias, 1.96 * c.bias_se, c.scale, 1.96 * c.scale_se);
  if (r.agreement.pairs > 0)
    o += fmt(
        "<tr><th>evaluation against games</th><td>mean |v (eval) &#8722; v (games)| %.3f [%.3f, "
        "%.3f] over %d pairs measured by games (their sampling alone: %.3f)</td></tr>",
        r.agreement.mean_abs, r.agreement.low, r.agreement.high, r.agreement.pairs,
        r.agreement.noise_floor);
  return o;
}

}  // namespace

std::string table_html(const TableReport& r, const KingPairTable* earlier) {
  std::ostringstream o;
  o << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>fusekilab king-pair "
       "table</title>\n<style>body{font-family:sans-serif;margin:20px;max-width:1100px} "
       "td,th{padding:2px 8px;text-align:left} table.list td{font-variant-numeric:tabular-nums} "
       "table.list tr:nth-child(even){background:#f3f3f3} .boards svg{margin-right:24px}"
       "</style></head><body>\n<section id=\"summary\"><h1>King-pair table</h1>\n<table>";
  for (auto& [k, val] : r.settings)
    o << "<tr><th>" << html_escape(k) << "</th><td>" << html_escape(val) << "</td></tr>";
  o << "<tr><th>model</th><td>" << html_escape(r.model) << "</td></tr><tr><th>games</th><td>"
    << r.games << "</td></tr><tr><th>uniform allocation, same band precision</th><td>"
    << r.uniform_equivalent << "</td></tr><tr><th>mirror pairs disagreeing</th><td>"
    << r.mirror_disagreements << "</td></tr>" << scoring_rows(r) << "</table></section>\n"
    << king_values_section(r.fit) << maps_section(r) << band_section(r);
  if (earlier) o << comparison_section(r, *earlier);
  o << "</body></html>\n";
  return o.str();
}

}  // namespace fuseki
