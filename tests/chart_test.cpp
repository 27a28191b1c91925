// The SVG line charts of the reports: round tick steps, axis labels at their multiples that
// cover the data, and every point drawn inside the plot.
#include "eval/chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

namespace fuseki {
namespace {

TEST(Chart, TickStepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(tick_step(60.9, 5), 10);
  EXPECT_DOUBLE_EQ(tick_step(240.85, 4), 50);
  EXPECT_DOUBLE_EQ(tick_step(0.37, 4), 0.1);
  EXPECT_DOUBLE_EQ(tick_step(7, 4), 2);
  EXPECT_DOUBLE_EQ(tick_step(0, 4), 1);
  EXPECT_DOUBLE_EQ(tick_step(-3, 4), 1);
}

std::vector<double> labels(const std::string& svg, const std::string& anchor) {
  std::vector<double> out;
  std::regex re("text-anchor=\"" + anchor + "\">(-?[0-9.e+-]+)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it)
    out.push_back(std::stod((*it)[1].str()));
  return out;
}

TEST(Chart, AxisLabelsAreRoundAndCoverTheData) {
  Series s{"run", {{0, -58.45}, {30.2, 122.2}, {60.9, 140}}, {{-80, 20}, {90, 182.4}, {100, 170}}};
  std::string svg = line_chart_svg("Elo", "minutes", {s}, 800, 400);
  std::vector<double> y = labels(svg, "end");
  ASSERT_EQ(y, (std::vector<double>{-100, -50, 0, 50, 100, 150, 200}));
  std::vector<double> x = labels(svg, "middle");
  // The x ticks, then the x axis's title is not a number: 0, 10, ..., 60.
  ASSERT_EQ(x, (std::vector<double>{0, 10, 20, 30, 40, 50, 60}));
  EXPECT_EQ(svg.find("-0<"), std::string::npos);
  // Every polyline point inside the plot rectangle (x 60..650, y 30..360 at 800 x 400).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("points=\"([^\"]*)\"")));
  std::string pts = m[1].str();
  std::regex pt("(-?[0-9.]+),(-?[0-9.]+)");
  int n = 0;
  for (std::sregex_iterator it(pts.begin(), pts.end(), pt), end; it != end; ++it, ++n) {
    double px = std::stod((*it)[1].str()), py = std::stod((*it)[2].str());
    EXPECT_GE(px, 60 - 1e-6);
    EXPECT_LE(px, 650 + 1e-6);
    EXPECT_GE(py, 30 - 1e-6);
    EXPECT_LE(py, 360 + 1e-6);
  }
  EXPECT_EQ(n, 3);
}

TEST(Chart, AConstantSeriesStillHasARange) {
  Series s{"flat", {{1, 5}, {2, 5}}, {}};
  std::vector<double> y = labels(line_chart_svg("t", "x", {s}), "end");
  ASSERT_GE(y.size(), 2u);
  EXPECT_LE(y.front(), 5);
  EXPECT_GE(y.back(), 5);
}

TEST(Chart, ALongLegendNameWidensThePicture) {
  Series a{"short", {{0, 1}, {1, 2}}, {}};
  Series b{"against uniform, the referee\u2019s results", {{0, 2}, {1, 1}}, {}};
  auto width_of = [](const std::string& svg) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(svg, m, std::regex("<svg [^>]*width=\"([0-9]+)\"")));
    return m.empty() ? 0 : std::stoi(m[1].str());
  };
  EXPECT_EQ(width_of(line_chart_svg("t", "x", {a}, 800, 400)), 800);
  std::string svg = line_chart_svg("t", "x", {a, b}, 800, 400);
  // 38 characters from x = 684 (the plot is still 60..650): at least 6 px each.
  EXPECT_GE(width_of(svg), 684 + 38 * 6);
  EXPECT_NE(svg.find("<rect x=\"60\" y=\"30\" width=\"590\""), std::string::npos);
}

}  // namespace
}  // namespace fuseki
