// What a figure says beside its data -- its lines' labels, axis titles, subtitles and CSV -- is
// what the data is: each test here is a sentence a figure got wrong.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/accumulate/accumulation_spec.h"
#include "core/experiment/matmul.h"
#include "core/experiment/roundtrip.h"
#include "core/export/figure_export.h"
#include "core/figure/experiment_figures.h"
#include "core/figure/throughput_figures.h"

namespace pl::figure {
namespace {

const Figure& named(const std::vector<Figure>& figures, const std::string& name) {
  const auto f = std::find_if(figures.begin(), figures.end(), [&](const Figure& x) { return x.name == name; });
  EXPECT_NE(f, figures.end()) << name;
  return *f;
}

std::vector<std::string> line_labels(const Figure& f) {
  std::vector<std::string> out;
  for (const Annotation& a : f.annotations) out.push_back(a.label);
  return out;
}

double line_at(const Figure& f, const std::string& label) {
  for (const Annotation& a : f.annotations)
    if (a.label == label) return a.value;
  ADD_FAILURE() << "no line '" << label << "'";
  return NAN;
}

experiment::MatmulResult run(experiment::MatmulConfig c) {
  auto r = experiment::run_matmul(c);
  EXPECT_TRUE(r) << r.error();
  return *r;
}

experiment::MatmulConfig small(DType input, const std::string& accumulate) {
  experiment::MatmulConfig c;
  c.m = c.n = 8;
  c.k = 256;
  c.input = c.weight = input;
  c.output = DType::float32;
  c.accumulate = *experiment::parse_accumulation(accumulate);
  return c;
}

// Bug: the attribution figure drew the model's result dtype as "the accumulator": "u f32
// (accumulator)" for float16 chunks summed into float32, whose sums are made in float16, and for
// an int32 sum, which is exact; and "u i8" (0.5) for int8 inputs, which have no unit roundoff.
TEST(FigureTexts, TheAttributionMarksTheAccumulatorTheModelAddsIn) {
  experiment::MatmulConfig chunks = small(DType::bfloat16, "f16:chunked:128");
  chunks.input_via = DType::float8_e5m2;  // (its data stored in float8 first: a line of its own)
  const Figure chunked = matmul_figures(run(chunks)).front();
  EXPECT_EQ(line_at(chunked, "u f16 (accumulator, within chunks)"), std::ldexp(1.0, -11));
  EXPECT_EQ(line_at(chunked, "u f32 (the chunks' sums)"), std::ldexp(1.0, -24));
  // Each line in a colour of its own (the chunks' sums took the stored-in line's grey).
  for (size_t i = 0; i < chunked.annotations.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const Color a = chunked.annotations[i].color, b = chunked.annotations[j].color;
      EXPECT_FALSE(a.r == b.r && a.g == b.g && a.b == b.b) << chunked.annotations[i].label;
    }
  experiment::MatmulConfig ints = small(DType::int8, "i32");
  ints.input_scaling.kind = ints.weight_scaling.kind = experiment::ScalingKind::PerChannel;
  const Figure int32 = matmul_figures(run(ints)).front();
  const std::vector<std::string> labels = line_labels(int32);
  EXPECT_EQ(labels, (std::vector<std::string>{"u f32 (the int32 sums' conversion)"}));
}

// Bug: the unit roundoff lines were 2^-p whatever the rounding; a directed rounding can be off by
// a whole unit in the last place, so its u is 2^(1-p) (accumulate.h), and a correct rtz output can
// be a whole ulp off, not half of one.
TEST(FigureTexts, UnitRoundoffsAndUlpLinesFollowTheRounding) {
  experiment::MatmulConfig c = small(DType::float16, "f32:sequential");
  c.cast.rounding = Rounding::TowardZero;
  const auto figures = matmul_figures(run(c));
  EXPECT_EQ(line_at(figures.front(), "u f16"), std::ldexp(1.0, -10));
  EXPECT_EQ(line_at(figures.front(), "u f32 (output)"), std::ldexp(1.0, -23));
  EXPECT_EQ(line_at(named(figures, "ulp-error"), "one ulp (the most a directed or stochastic rounding is off)"), 1.0);
  experiment::RoundtripConfig rt;
  rt.rows = 8, rt.cols = 64;
  rt.dtype = DType::float16;
  rt.cast.rounding = Rounding::TowardZero;
  auto r = experiment::run_roundtrip(rt);
  ASSERT_TRUE(r) << r.error();
  const Figure err = named(roundtrip_figures(*r), "roundtrip-error");
  ASSERT_EQ(err.annotations.size(), 1u);
  EXPECT_EQ(err.annotations[0].value, std::ldexp(1.0, -10));
}

// Bug: an integer round trip's subtitle named the rounding asked for ("rounded toward zero"),
// though integers always round to nearest, ties to even (its figures were the rne run's).
TEST(FigureTexts, AnIntegerRoundTripSaysItRoundsToNearest) {
  experiment::RoundtripConfig rt;
  rt.rows = 8, rt.cols = 64;
  rt.dtype = DType::int8;
  rt.scaling.kind = experiment::ScalingKind::PerChannel;
  rt.cast.rounding = Rounding::TowardZero;
  auto r = experiment::run_roundtrip(rt);
  ASSERT_TRUE(r) << r.error();
  const std::string subtitle = roundtrip_figures(*r).front().subtitle;
  EXPECT_NE(subtitle.find("rounded to nearest, ties to even (as integers always are here)"), std::string::npos)
      << subtitle;
  EXPECT_EQ(subtitle.find("toward zero"), std::string::npos) << subtitle;
}

// Bug: with a bias the bound figure's axis said |Cacc - Rq| / (|A||B|), where the ratio plotted
// divides by (|A||B|)_ij + |b_j| (bound_check.h).
TEST(FigureTexts, TheBoundAxisNamesTheBias) {
  experiment::MatmulConfig c = small(DType::float16, "f32:sequential");
  EXPECT_EQ(named(matmul_figures(run(c)), "arithmetic-vs-bound").x.label, "|Cacc - Rq| / (|A||B|)");
  c.bias = DType::float16;
  EXPECT_EQ(named(matmul_figures(run(c)), "arithmetic-vs-bound").x.label, "|Cacc - Rq| / ((|A||B|) + |bias|)");
}

// Bug: the heat map's subtitle said outputs NaN or Inf were "left out"; it draws them grey.
TEST(FigureTexts, TheHeatmapSaysItsNonFiniteOutputsAreGrey) {
  experiment::MatmulConfig c = small(DType::float16, "f16:sequential");
  c.output = DType::float16;
  c.input_data.distribution = experiment::Distribution::Normal;
  c.input_data.scale = 1000;
  c.weight_data = c.input_data;
  const auto figures = matmul_figures(run(c));
  EXPECT_NE(named(figures, "error-heatmap").subtitle.find("outputs NaN or Inf, grey"), std::string::npos)
      << named(figures, "error-heatmap").subtitle;
  EXPECT_NE(named(figures, "error-attribution").subtitle.find("outputs NaN or Inf, left out"), std::string::npos);
}

// Bug: a scale map's all-zero blocks, drawn at the bottom of the colour scale, were written to
// the CSV as that bottom value, as if they had that scale; they have none.
TEST(FigureTexts, AScaleMapsCsvKeepsTheBlocksWithoutAScale) {
  experiment::RoundtripConfig rt;
  rt.rows = 4, rt.cols = 64;
  rt.dtype = DType::float8_e4m3fn;
  rt.scaling.kind = experiment::ScalingKind::MX;
  std::vector<double> values(rt.rows * rt.cols);
  for (size_t i = 0; i < values.size(); ++i) values[i] = i / rt.cols == 2 ? 0.0 : std::sin(double(i)) * 3;
  auto r = experiment::run_roundtrip(rt, values);
  ASSERT_TRUE(r) << r.error();
  const std::vector<Figure> figures = roundtrip_figures(*r);
  const Figure& map = named(figures, "scale-map");
  const std::string csv = figure_csv(map);
  EXPECT_NE(csv.find("nan: a block of zeros, which has no scale"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nnan,nan\n"), std::string::npos) << csv;
}

// Bug: the speed-up chart's CSV wrote the gaps between its bars, and a dtype the datasheet does
// not rate, as speed-ups of 0.
TEST(FigureTexts, TheSpeedUpCsvHasNoSpeedUpOfZero) {
  experiment::ThroughputResult r;
  r.device = "cpu";
  r.config.baseline = DType::float32;
  r.config.datasheet = "H100 SXM5";
  for (DType t : {DType::float32, DType::float16, DType::int8}) {
    r.rows.push_back({.dtype = t,
                      .method = "",
                      .emulated = false,
                      .seconds = {1, 1, 1},
                      .median_seconds = 1,
                      .gflops = 1,
                      .speedup = 2});
    experiment::DatasheetRow d;
    d.dtype = t, d.supported = t != DType::int8, d.speedup = 4;
    r.datasheet.push_back(d);
  }
  const std::string csv = figure_csv(speedup_vs_datasheet(r));
  EXPECT_EQ(csv.find(",0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",nan\n"), std::string::npos) << csv;
}

// Bug: the relative-error axes divided by "max(|reference|, floor)" and never said what the
// floor is: the output dtype's smallest normal for a product, float64's for a round trip.
TEST(FigureTexts, TheRelativeErrorAxesSayTheirFloor) {
  EXPECT_EQ(matmul_figures(run(small(DType::bfloat16, "f32:sequential"))).at(0).x.label,
            "|e| / max(|reference|, 2^-126)");
  experiment::RoundtripConfig c;
  c.rows = 4, c.cols = 16;
  c.dtype = DType::bfloat16;
  const auto trip = experiment::run_roundtrip(c);
  ASSERT_TRUE(trip) << trip.error();
  EXPECT_EQ(roundtrip_figures(*trip).at(0).x.label, "|e| / max(|x|, 2^-1022)");
}

// Bug: a legend entry's commas were turned into semicolons in the CSV beside the figure
// ("x.to(w.dtype): float32; 21.9 bits" for "..., 21.9 bits") and its quotes were written bare
// ('"2x faster" read against float32' is no CSV field); a line's points were called "point".
// Labels are written as the legend writes them, quoted as RFC 4180 quotes a field.
TEST(FigureCsv, LabelsAreTheLegendsQuotedWhereTheyHoldACommaOrAQuote) {
  Figure f;
  f.series.push_back({"x.to(w.dtype): float32, 21.9 bits", SeriesKind::Bars, {0, 1}, {3}, palette(0)});
  f.series.push_back({"\"2x faster\" read against float32", SeriesKind::Line, {1}, {2}, palette(1)});
  f.series.push_back({"plain", SeriesKind::Points, {1}, {2}, palette(2)});
  f.annotations.push_back({AnnotationKind::HorizontalLine, 0.5, "u, float32", {}});
  const std::string csv = figure_csv(f);
  EXPECT_NE(csv.find("\n\"x.to(w.dtype): float32, 21.9 bits\",bar,0,1,3\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n\"\"\"2x faster\"\" read against float32\",line,1,,2\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nplain,point,1,,2\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n\"u, float32\",hline,0.5,,\n"), std::string::npos) << csv;
  // Bug: the unnamed markers over a line's points were written again as rows of no name.
  f.series.push_back({"", SeriesKind::Points, {1}, {2}, palette(1)});
  f.series.push_back({"", SeriesKind::Points, {7}, {8}, palette(1)});  // (its own values: kept)
  const std::string marked = figure_csv(f);
  EXPECT_EQ(marked.find("\n,point,1,,2\n"), std::string::npos) << marked;
  EXPECT_NE(marked.find("\n,point,7,,8\n"), std::string::npos) << marked;
}

}  // namespace
}  // namespace pl::figure
