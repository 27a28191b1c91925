// Small SVG line charts (training curves, per-generation statistics), no dependencies.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fuseki {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
  std::vector<std::pair<double, double>> bars;    // empty, or (low, high) for each point
};

// Text made safe inside HTML or SVG, as text or as an attribute's value (<, >, & and ").
std::string html_escape(const std::string& s);

// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `intervals` parts;
// 1 for an empty span.
double tick_step(double span, int intervals);

// One chart: axes with ticks, one coloured polyline per series (with its error bars), a legend.
std::string line_chart_svg(const std::string& title, const std::string& x_label,
                           const std::vector<Series>& series, int width = 640, int height = 320);

}  // namespace fuseki
