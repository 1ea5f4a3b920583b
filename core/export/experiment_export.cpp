#include "core/export/experiment_export.h"

#include <filesystem>

#include "core/export/figure_export.h"
#include "core/figure/experiment_figures.h"
#include "core/io/checked_write.h"
#include "core/io/json_text.h"
#include "core/util/number_text.h"

namespace pl::exporting {

using namespace experiment;

Status save_json(const std::string& dir, const std::string& file, const nlohmann::json& j) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  return io::write_file(dir + "/" + file, j.dump(1, ' ', false, io::kReplaceInvalidUtf8) + "\n");
}

Status save_figures(const std::vector<figure::Figure>& figures, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  for (const figure::Figure& f : figures)
    for (auto type : {figure::FileType::Png, figure::FileType::Svg, figure::FileType::Pdf, figure::FileType::Csv}) {
      auto w = figure::export_figure(f, dir + "/" + f.name + "." + figure::extension(type), type,
                                     figure::default_export_options());
      if (!w) return w;
    }
  return {};
}

Status save_results(const MatmulSpec& spec, const MatmulResult& r, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  auto write = [&](const std::string& file, const std::string& text) { return io::write_file(dir + "/" + file, text); };
  nlohmann::json setup = to_json(spec);
  if (auto w = write("setup.json", setup.dump(2, ' ', false, io::kReplaceInvalidUtf8) + "\n"); !w) return w;
  if (auto w = write("result.json", to_json(r, spec.files).dump(1, ' ', false, io::kReplaceInvalidUtf8) + "\n"); !w)
    return w;
  std::string csv = "component,histogram,bin_low,bin_high,count\n";
  for (const ErrorComponent* e : {&r.total, &r.input, &r.arithmetic, &r.output})
    for (const auto& [kind, h] :
         {std::pair{"relative", &e->relative}, std::pair{"signed", &e->signed_error}, std::pair{"ulps", &e->ulps}})
      for (size_t i = 0; i < h->counts.size(); ++i)
        csv += e->name + "," + kind + "," + shortest_double(h->edges[i]) + "," + shortest_double(h->edges[i + 1]) +
               "," + std::to_string(h->counts[i]) + "\n";
  if (auto w = write("histograms.csv", csv); !w) return w;
  return save_figures(figure::matmul_figures(r), dir);
}

Status save_spec_run(const SpecRun& run, const std::string& dir) {
  if (run.result) {
    auto saved = save_results(run.spec, *run.result, dir);
    if (!saved) return saved;
  } else if (auto saved = save_json(dir, "setup.json", to_json(run.spec)); !saved) {
    return saved;
  }
  if (!run.framework) return {};
  if (auto saved = save_json(dir, "framework.json", to_json(*run.framework)); !saved) return saved;
  // The fixes side by side, as the window shows them above each fix's own figures.
  if (run.raised())
    if (auto saved = save_figures({figure::framework_fixes_figure(*run.framework)}, dir); !saved) return saved;
  for (size_t i = 0; i < run.framework->fixes.size(); ++i) {
    const FixRun& f = run.framework->fixes[i];
    if (!f.result) continue;
    const MatmulSpec fix{f.result->config, run.spec.files, ""};
    if (auto saved = save_results(fix, *f.result, dir + "/fix-" + std::to_string(i + 1)); !saved) return saved;
  }
  return {};
}

}  // namespace pl::exporting
