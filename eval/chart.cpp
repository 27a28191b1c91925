#include "eval/chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace fuseki {
namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

}  // namespace

double tick_step(double span, int intervals) {
  if (!(span > 0) || intervals < 1) return 1;
  double raw = span / intervals;
  double unit = std::pow(10.0, std::floor(std::log10(raw)));
  double m = raw / unit;
  return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * unit;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string line_chart_svg(const std::string& title, const std::string& x_label,
                           const std::vector<Series>& series, int width, int height) {
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const Series& s : series) {
    for (auto [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
    for (auto [lo, hi] : s.bars)
      if (std::isfinite(lo) && std::isfinite(hi)) y0 = std::min(y0, lo), y1 = std::max(y1, hi);
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1, y0 -= 1;
  // Ticks at round values: the y range widened to whole steps, the x range kept (its ticks are
  // the steps' multiples inside it).
  const double ys = tick_step(y1 - y0, 4), xs = tick_step(x1 - x0, 5);
  y0 = std::floor(y0 / ys + 1e-9) * ys;
  y1 = std::ceil(y1 / ys - 1e-9) * ys;
  // The legend column right of the plot is as wide as its longest name (about 6.5 px a character
  // at 11 px): a longer name widens the picture instead of running off it; the plot keeps its size.
  size_t longest = 0;
  for (const Series& s : series) {
    size_t chars = 0;
    for (unsigned char c : s.name) chars += (c & 0xC0) != 0x80;  // UTF-8 code points
    longest = std::max(longest, chars);
  }
  const double left = 60, top = 30, bottom = 40, least_right = 150;  // `width` has least_right
  const double right = std::max(least_right, std::ceil(34 + 6.5 * double(longest) + 10));
  double pw = width - left - least_right, ph = height - top - bottom;
  width = int(left + pw + right);
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * pw; };
  auto py = [&](double y) { return top + (1 - (y - y0) / (y1 - y0)) * ph; };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << left << "\" y=\"18\" font-size=\"13\">" << html_escape(title) << "</text>\n"
    << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (double k = std::round(y0 / ys); k * ys <= y1 + ys * 1e-6; ++k) {
    double y = k * ys + 0.0;  // + 0.0: no "-0"
    o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << py(y) << "\" y2=\""
      << py(y) << "\" stroke=\"#eee\"/><text x=\"" << left - 6 << "\" y=\"" << py(y) + 4
      << "\" text-anchor=\"end\">" << num(y) << "</text>\n";
  }
  for (double k = std::ceil(x0 / xs - 1e-9); k * xs <= x1 + xs * 1e-6; ++k)
    o << "<text x=\"" << px(k * xs + 0.0) << "\" y=\"" << top + ph + 16
      << "\" text-anchor=\"middle\">" << num(k * xs + 0.0) << "</text>\n";
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << height - 6 << "\" text-anchor=\"middle\">"
    << html_escape(x_label) << "</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const char* colour = kColours[i % 6];
    o << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
    for (auto [x, y] : series[i].points)
      if (std::isfinite(x) && std::isfinite(y)) o << px(x) << "," << py(y) << " ";
    o << "\"/>\n";
    for (size_t k = 0; k < series[i].bars.size() && k < series[i].points.size(); ++k) {
      auto [lo, hi] = series[i].bars[k];
      double x = series[i].points[k].first;
      if (!std::isfinite(x) || !std::isfinite(lo) || !std::isfinite(hi)) continue;
      o << "<path stroke=\"" << colour << "\" d=\"M" << px(x) << "," << py(lo) << "V" << py(hi)
        << "M" << px(x) - 3 << "," << py(lo) << "h6M" << px(x) - 3 << "," << py(hi) << "h6\"/>\n";
    }
    if (series[i].points.size() == 1)
      o << "<circle cx=\"" << px(series[i].points[0].first) << "\" cy=\""
        << py(series[i].points[0].second) << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    double ly = top + 14 + 16 * double(i);
    o << "<line x1=\"" << left + pw + 10 << "\" x2=\"" << left + pw + 30 << "\" y1=\"" << ly
      << "\" y2=\"" << ly << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/><text x=\""
      << left + pw + 34 << "\" y=\"" << ly + 4 << "\">" << html_escape(series[i].name)
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace fuseki
