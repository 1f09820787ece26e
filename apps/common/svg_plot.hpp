// A small line- and bar-chart writer producing standalone SVG (Debian has no small C++
// plotting library): axes with "nice" ticks (1, 2, 5 x 10^k), a light grid,
// a title, axis labels and a legend. Long series are decimated per pixel
// column to their first/min/max/last points, so the picture keeps every peak
// and step while the file stays small.
#pragma once

#include <string>
#include <vector>

namespace perron::app {

struct plot_series {
  std::string label;
  std::vector<double> x, y;  // same length; non-finite points break the line
  std::string color;         // "" = next colour of the palette
  bool dashed = false;
  double width = 1.8;
};

struct plot_options {
  std::string title;
  std::string x_label;
  std::string y_label;
  int width = 900;
  int height = 560;
  // Logarithmic y axis (decades): points with y <= 0 break the line.
  bool log_y = false;
};

// Tick positions covering [lo, hi] at a 1-2-5 step, about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

// Keeps at most ~4 points per bucket of `buckets` equal x-ranges (first, min,
// max, last in x order): the shape a `buckets`-pixel-wide plot can show.
void decimate(std::vector<double>& x, std::vector<double>& y, int buckets);

std::string svg_line_plot(const std::vector<plot_series>& series, const plot_options& opt);
// A --plot FILE the apps write SVG into: one whose extension says another
// format ("p.png": an SVG no image viewer opens under that name) is a
// usage_error naming `option`; no extension, ".svg" (any case) and "-" pass.
void check_plot_name(const std::string& path, const char* option = "--plot");
// Writes the SVG to path through io::output_file (a temporary renamed into
// place; "-" is standard output); perron::io_error when it cannot be written.
void write_svg_line_plot(const std::string& path, const std::vector<plot_series>& series,
                         const plot_options& opt);

// One bar of a horizontal bar chart: a measured value and its label.
struct plot_bar {
  std::string label;
  double value = 0;   // >= 0; a non-finite value draws no bar and prints "n/a"
  std::string color;  // "" = the palette's first colour
};

// Horizontal bars from 0, one per row in the given order, each labelled on
// the left and its value printed at its end; opt.x_label names the value's
// unit (log_y is ignored).
std::string svg_bar_chart(const std::vector<plot_bar>& bars, const plot_options& opt);
void write_svg_bar_chart(const std::string& path, const std::vector<plot_bar>& bars, const plot_options& opt);

}  // namespace perron::app
