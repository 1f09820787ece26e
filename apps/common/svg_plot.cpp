#include "apps/common/svg_plot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>

#include "apps/common/usage.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/output_file.hpp"

namespace perron::app {

namespace {

// Colour-blind-safe palette (Okabe & Ito), darkest first.
const char* const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                               "#E69F00", "#56B4E9", "#000000", "#F0E442"};

// Text for the SVG: XML's five characters escaped, and what XML 1.0 cannot
// hold at all, a control byte or a byte that is not well-formed UTF-8 (a
// file name's: Linux names are bytes), shown as \xNN: the SVG of 'c\x01.mtx'
// was no well-formed XML, and no viewer opened it.
std::string xml_escape(const std::string& s) {
  std::string o;
  for (std::size_t i = 0; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x80) {
      const std::size_t n = utf8_sequence(s, i);
      if (n > 0) {
        o.append(s, i, n);
        i += n;
        continue;
      }
    }
    const char c = s[i++];
    if ((u < 0x20 && c != '\t') || u == 0x7f || u >= 0x80) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      o += buf;
      continue;
    }
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

// Tick label: as few digits as the tick step needs.
std::string tick_label(double v, double step) {
  if (std::abs(v) < step * 1e-9) v = 0;
  const double mag = std::max(std::abs(v), step);
  if (mag >= 1e5 || mag < 1e-3) return format_g(v, 3);
  return format_fixed(v, std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))));
}

// SVG coordinates: two decimals.
std::string fmt(double v) { return format_fixed(v, 2); }

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo || target < 2) return ticks;
  const double raw = (hi - lo) / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double t = first; t <= hi + step * 1e-9; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

void decimate(std::vector<double>& x, std::vector<double>& y, int buckets) {
  const std::size_t n = std::min(x.size(), y.size());
  if (buckets < 1 || n <= std::size_t(4) * std::size_t(buckets)) return;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i])) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
  if (!(hi > lo)) return;
  std::vector<double> ox, oy;
  std::size_t i = 0;
  while (i < n) {
    const int b = std::min(buckets - 1, static_cast<int>((x[i] - lo) / (hi - lo) * buckets));
    std::size_t j = i, imin = i, imax = i;
    while (j < n && std::min(buckets - 1, static_cast<int>((x[j] - lo) / (hi - lo) * buckets)) == b) {
      if (y[j] < y[imin]) imin = j;
      if (y[j] > y[imax]) imax = j;
      ++j;
    }
    std::size_t keep[4] = {i, std::min(imin, imax), std::max(imin, imax), j - 1};
    std::size_t last = n;
    for (std::size_t k : keep)
      if (k != last) {
        ox.push_back(x[k]);
        oy.push_back(y[k]);
        last = k;
      }
    i = j;
  }
  x.swap(ox);
  y.swap(oy);
}

namespace {

// The plot area in SVG coordinates and the data range it shows.
struct frame {
  double left, top, pw, ph;
  double xlo, xhi, ylo, yhi;
  double sx(double x) const { return left + (x - xlo) / (xhi - xlo) * pw; }
  double sy(double y) const { return top + (yhi - y) / (yhi - ylo) * ph; }
};

frame frame_for(const std::vector<plot_series>& series, const plot_options& opt) {
  const double left = 78, right = 24, top = opt.title.empty() ? 24 : 48, bottom = 58;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : series)
    for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        xlo = std::min(xlo, s.x[i]), xhi = std::max(xhi, s.x[i]);
        ylo = std::min(ylo, s.y[i]), yhi = std::max(yhi, s.y[i]);
      }
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  if (xhi <= xlo) xlo -= 0.5, xhi += 0.5;
  if (yhi <= ylo) {
    const double pad = std::abs(ylo) > 0 ? 0.1 * std::abs(ylo) : 0.5;
    ylo -= pad, yhi += pad;
  } else {
    const double pad = 0.05 * (yhi - ylo);  // breathing room above and below the data
    ylo -= pad, yhi += pad;
  }
  return {left, top, opt.width - left - right, opt.height - top - bottom, xlo, xhi, ylo, yhi};
}

// y ticks: 1-2-5 steps, or on a log axis (y holds log10 of the data) whole
// decades, thinned to at most about 8.
std::vector<double> y_ticks(const frame& f, bool log_y) {
  if (!log_y) return nice_ticks(f.ylo, f.yhi, 6);
  const double lo = std::ceil(f.ylo - 1e-9), hi = std::floor(f.yhi + 1e-9);
  const double step = std::max(1.0, std::ceil((hi - lo + 1) / 8));
  std::vector<double> t;
  for (double d = lo; d <= hi; d += step) t.push_back(d);
  return t;
}

std::string y_label_of(double t, double step, bool log_y) {
  return log_y ? format_g(std::pow(10.0, t), 3) : tick_label(t, step);
}

// Title, grid, ticks with their labels, the plot's border and the axis labels.
void write_axes(std::ostream& o, const frame& f, const plot_options& opt) {
  const double left = f.left, top = f.top, pw = f.pw, ph = f.ph, h = opt.height;
  const auto xt = nice_ticks(f.xlo, f.xhi, 8), yt = y_ticks(f, opt.log_y);
  if (!opt.title.empty())
    o << "<text x=\"" << fmt(left + pw / 2) << "\" y=\"30\" text-anchor=\"middle\" font-size=\"17\">"
      << xml_escape(opt.title) << "</text>\n";
  o << "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  for (double t : xt)
    o << "<line x1=\"" << fmt(f.sx(t)) << "\" y1=\"" << fmt(top) << "\" x2=\"" << fmt(f.sx(t)) << "\" y2=\""
      << fmt(top + ph) << "\"/>\n";
  for (double t : yt)
    o << "<line x1=\"" << fmt(left) << "\" y1=\"" << fmt(f.sy(t)) << "\" x2=\"" << fmt(left + pw)
      << "\" y2=\"" << fmt(f.sy(t)) << "\"/>\n";
  o << "</g>\n<g font-size=\"13\" fill=\"#222\">\n";
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double t : xt)
    o << "<line x1=\"" << fmt(f.sx(t)) << "\" y1=\"" << fmt(top + ph) << "\" x2=\"" << fmt(f.sx(t))
      << "\" y2=\"" << fmt(top + ph + 5) << "\" stroke=\"#222\"/><text x=\"" << fmt(f.sx(t)) << "\" y=\""
      << fmt(top + ph + 20) << "\" text-anchor=\"middle\">" << tick_label(t, xstep) << "</text>\n";
  for (double t : yt)
    o << "<line x1=\"" << fmt(left - 5) << "\" y1=\"" << fmt(f.sy(t)) << "\" x2=\"" << fmt(left) << "\" y2=\""
      << fmt(f.sy(t)) << "\" stroke=\"#222\"/><text x=\"" << fmt(left - 8) << "\" y=\"" << fmt(f.sy(t) + 4.5)
      << "\" text-anchor=\"end\">" << y_label_of(t, ystep, opt.log_y) << "</text>\n";
  o << "</g>\n";
  o << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(top) << "\" width=\"" << fmt(pw) << "\" height=\""
    << fmt(ph) << "\" fill=\"none\" stroke=\"#222\" stroke-width=\"1.2\"/>\n";
  if (!opt.x_label.empty())
    o << "<text x=\"" << fmt(left + pw / 2) << "\" y=\"" << fmt(h - 14)
      << "\" text-anchor=\"middle\" font-size=\"14\">" << xml_escape(opt.x_label) << "</text>\n";
  if (!opt.y_label.empty())
    o << "<text transform=\"translate(20 " << fmt(top + ph / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"14\">" << xml_escape(opt.y_label) << "</text>\n";
}

// The curves, clipped to the plot area; returns each series' colour.
std::vector<std::string> write_curves(std::ostream& o, const frame& f,
                                      const std::vector<plot_series>& series) {
  o << "<defs><clipPath id=\"plot\"><rect x=\"" << fmt(f.left) << "\" y=\"" << fmt(f.top) << "\" width=\""
    << fmt(f.pw) << "\" height=\"" << fmt(f.ph)
    << "\"/></clipPath></defs>\n<g clip-path=\"url(#plot)\" fill=\"none\" stroke-linejoin=\"round\">\n";
  std::vector<std::string> colors;
  int next = 0;
  for (const auto& s : series) {
    const std::string color = s.color.empty() ? palette[next++ % 8] : s.color;
    colors.push_back(color);
    std::vector<double> x = s.x, y = s.y;
    x.resize(std::min(x.size(), y.size()));
    y.resize(x.size());
    decimate(x, y, static_cast<int>(f.pw));
    o << "<path stroke=\"" << color << "\" stroke-width=\"" << s.width << "\""
      << (s.dashed ? " stroke-dasharray=\"7 5\"" : "") << " d=\"";
    bool pen_down = false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
        pen_down = false;
        continue;
      }
      o << (pen_down ? 'L' : 'M') << fmt(f.sx(x[i])) << ' ' << fmt(f.sy(y[i])) << ' ';
      pen_down = true;
    }
    o << "\"/>\n";
  }
  o << "</g>\n";
  return colors;
}

// The legend, in the corner that hides the fewest data points.
void write_legend(std::ostream& o, const frame& f, const std::vector<plot_series>& series,
                  const std::vector<std::string>& colors) {
  std::size_t labelled = 0, longest = 0;
  for (const auto& s : series)
    if (!s.label.empty()) ++labelled, longest = std::max(longest, s.label.size());
  if (!labelled) return;
  const double left = f.left, top = f.top, pw = f.pw, ph = f.ph;
  const double lw = 44 + 7.4 * double(longest), lh = 10 + 20 * double(labelled);
  const double corners[4][2] = {{left + pw - lw - 10, top + 10},
                                {left + 10, top + 10},
                                {left + pw - lw - 10, top + ph - lh - 10},
                                {left + 10, top + ph - lh - 10}};
  std::size_t best_hits = std::numeric_limits<std::size_t>::max();
  double lx = corners[0][0], ly = corners[0][1];
  for (const auto& c : corners) {
    std::size_t hits = 0;
    for (const auto& sr : series)
      for (std::size_t i = 0; i < std::min(sr.x.size(), sr.y.size()); ++i) {
        const double px = f.sx(sr.x[i]), py = f.sy(sr.y[i]);
        hits += px >= c[0] - 6 && px <= c[0] + lw + 6 && py >= c[1] - 6 && py <= c[1] + lh + 6;
      }
    if (hits < best_hits) best_hits = hits, lx = c[0], ly = c[1];
  }
  o << "<g font-size=\"13\"><rect x=\"" << fmt(lx) << "\" y=\"" << fmt(ly) << "\" width=\"" << fmt(lw)
    << "\" height=\"" << fmt(lh) << "\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#999\"/>\n";
  double yy = ly + 18;
  for (std::size_t k = 0; k < series.size(); ++k) {
    if (series[k].label.empty()) continue;
    o << "<line x1=\"" << fmt(lx + 8) << "\" y1=\"" << fmt(yy - 4) << "\" x2=\"" << fmt(lx + 34) << "\" y2=\""
      << fmt(yy - 4) << "\" stroke=\"" << colors[k] << "\" stroke-width=\"" << series[k].width << "\""
      << (series[k].dashed ? " stroke-dasharray=\"7 5\"" : "") << "/><text x=\"" << fmt(lx + 40) << "\" y=\""
      << fmt(yy) << "\">" << xml_escape(series[k].label) << "</text>\n";
    yy += 20;
  }
  o << "</g>\n";
}

}  // namespace

std::string svg_line_plot(const std::vector<plot_series>& series_in, const plot_options& opt) {
  std::vector<plot_series> logged;
  if (opt.log_y) {
    logged = series_in;
    for (auto& s : logged)
      for (double& y : s.y) y = y > 0 ? std::log10(y) : std::numeric_limits<double>::quiet_NaN();
  }
  const std::vector<plot_series>& series = opt.log_y ? logged : series_in;
  const frame f = frame_for(series, opt);
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << opt.width << "\" height=\"" << opt.height
    << "\" viewBox=\"0 0 " << opt.width << ' ' << opt.height
    << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  write_axes(o, f, opt);
  const auto colors = write_curves(o, f, series);
  write_legend(o, f, series, colors);
  o << "</svg>\n";
  return o.str();
}

namespace {

void write_file(const std::string& path, const std::string& svg) {
  io::output_file f(path);
  f.write(svg);
  f.commit();
}

}  // namespace

void write_svg_line_plot(const std::string& path, const std::vector<plot_series>& series,
                         const plot_options& opt) {
  write_file(path, svg_line_plot(series, opt));
}

std::string svg_bar_chart(const std::vector<plot_bar>& bars, const plot_options& opt) {
  // Room on the left for the longest label (about 7 px a character at 13 px).
  std::size_t longest = 0;
  double hi = 0;
  for (const auto& b : bars) {
    longest = std::max(longest, b.label.size());
    if (std::isfinite(b.value)) hi = std::max(hi, b.value);
  }
  const double row = 26, left = std::min(16 + 7.2 * double(longest), 0.55 * opt.width);
  const double top = opt.title.empty() ? 24 : 48, bottom = 58, right = 90;
  const double height = top + bottom + row * double(std::max<std::size_t>(bars.size(), 1));
  const auto ticks = nice_ticks(0, hi > 0 ? hi : 1, 6);
  const double xhi = ticks.empty() ? 1 : std::max(ticks.back(), hi);
  const frame f{left, top, opt.width - left - right, height - top - bottom, 0, xhi, 0, 1};
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << opt.width << "\" height=\"" << fmt(height)
    << "\" viewBox=\"0 0 " << opt.width << ' ' << fmt(height)
    << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!opt.title.empty())
    o << "<text x=\"" << fmt(opt.width / 2.0) << "\" y=\"30\" text-anchor=\"middle\" font-size=\"17\">"
      << xml_escape(opt.title) << "</text>\n";
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  o << "<g font-size=\"13\" fill=\"#222\">\n";
  for (double t : ticks)
    o << "<line x1=\"" << fmt(f.sx(t)) << "\" y1=\"" << fmt(top) << "\" x2=\"" << fmt(f.sx(t)) << "\" y2=\""
      << fmt(top + f.ph + 5) << "\" stroke=\"#e3e3e3\"/><text x=\"" << fmt(f.sx(t)) << "\" y=\""
      << fmt(top + f.ph + 20) << "\" text-anchor=\"middle\">" << tick_label(t, step) << "</text>\n";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const plot_bar& b = bars[i];
    const double y = top + row * double(i), mid = y + row / 2 + 4.5;
    o << "<text x=\"" << fmt(left - 8) << "\" y=\"" << fmt(mid) << "\" text-anchor=\"end\">"
      << xml_escape(b.label) << "</text>\n";
    const bool drawn = std::isfinite(b.value) && b.value >= 0;
    if (drawn)
      o << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(y + 4) << "\" width=\"" << fmt(f.sx(b.value) - left)
        << "\" height=\"" << fmt(row - 8) << "\" fill=\"" << (b.color.empty() ? palette[0] : b.color)
        << "\"/>\n";
    o << "<text x=\"" << fmt((drawn ? f.sx(b.value) : left) + 6) << "\" y=\"" << fmt(mid) << "\">"
      << (drawn ? format_g(b.value, 4) : std::string("n/a")) << "</text>\n";
  }
  o << "</g>\n<line x1=\"" << fmt(left) << "\" y1=\"" << fmt(top) << "\" x2=\"" << fmt(left) << "\" y2=\""
    << fmt(top + f.ph) << "\" stroke=\"#222\" stroke-width=\"1.2\"/>\n";
  if (!opt.x_label.empty())
    o << "<text x=\"" << fmt(left + f.pw / 2) << "\" y=\"" << fmt(height - 14)
      << "\" text-anchor=\"middle\" font-size=\"14\">" << xml_escape(opt.x_label) << "</text>\n";
  o << "</svg>\n";
  return o.str();
}

void write_svg_bar_chart(const std::string& path, const std::vector<plot_bar>& bars,
                         const plot_options& opt) {
  write_file(path, svg_bar_chart(bars, opt));
}

void check_plot_name(const std::string& path, const char* option) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!ext.empty() && ext != ".svg")
    throw usage_error(std::string(option) + " writes SVG, and '" + path + "' names another format (" + ext +
                      "); name the file FILE.svg");
}

}  // namespace perron::app
