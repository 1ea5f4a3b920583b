#include "core/scenario/scenario_export.h"

#include <cctype>
#include <filesystem>

#include "core/export/experiment_export.h"
#include "core/export/slide_deck.h"
#include "core/figure/experiment_figures.h"
#include "core/io/checked_write.h"
#include "core/util/csv_field.h"

namespace pl::exporting {
namespace {

// Table cells: a '|' would end the cell, a newline the row.
std::string md_cell(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

Status write_text(const std::string& path, const std::string& text) { return io::write_file(path, text); }

}  // namespace

std::string scenario_markdown(const scenario::ScenarioRun& run) {
  const auto& s = run.scenario;
  std::string md = "# " + s.title + "\n\n" + s.story + "\n\n";
  if (!s.look_at.empty()) md += "**Look at:** " + s.look_at + "\n\n";
  md += "| check | expected | observed | verdict |\n|---|---|---|---|\n";
  for (const auto& c : run.checks)
    md += "| " + md_cell(c.label) + " | " + md_cell(expected_text(c)) + " | " + md_cell(shown_answer(c, c.observed)) + " | " +
          (c.passed ? "pass" : "FAIL" + (c.note.empty() ? "" : ": " + md_cell(c.note))) + " |\n";
  // Appended, not "\n" + std::to_string(...): GCC 12 warns falsely on that (-Wrestrict, bug 105329).
  md += "\n";
  md += checks_summary(run) + ".\n\n";
  md += "## What backs each expected value\n\n";
  for (const auto& c : run.checks) md += "- **" + c.id + "**: " + c.backing + "\n";
  if (!run.evidence.empty()) {
    md += "\n## Evidence\n\n";
    for (size_t i = 0; i < run.evidence.size(); ++i)
      md += "- " + evidence_folder(i, run.evidence[i].label) + (run.evidence[i].run ? "/" : "") + ": " +
            run.evidence[i].label + (run.evidence[i].run ? "" : " (did not run: " + run.evidence[i].error + ")") + "\n";
  }
  return md;
}

std::string evidence_folder(size_t i, const std::string& label) {
  constexpr size_t kMost = 48;
  std::string slug;
  for (const char c : label) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\'') continue;  // "dtype's" reads as one word
    if (std::isalnum(u)) slug += static_cast<char>(std::tolower(u));
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  if (slug.size() > kMost) {
    slug.resize(kMost);
    if (const size_t cut = slug.rfind('-'); cut != std::string::npos && cut > kMost / 2) slug.resize(cut);
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  std::string folder = "evidence-" + std::to_string(i);
  if (!slug.empty()) folder.append("-").append(slug);
  return folder;
}

SlideDeck scenario_deck(const scenario::ScenarioRun& run) {
  const auto& s = run.scenario;
  SlideDeck deck;
  deck.title = s.title;
  Slide story;
  story.title = s.title;
  story.paragraphs.push_back(s.story);
  if (!s.look_at.empty()) story.paragraphs.push_back("Look at: " + s.look_at);
  deck.slides.push_back(std::move(story));
  // Each evidence run's figures, full page; the one the look-at points to first.
  std::vector<Slide> figures;
  for (size_t i = 0; i < run.evidence.size(); ++i) {
    const auto& e = run.evidence[i];
    if (!e.run) continue;
    for (auto& f : figure::experiment_figures(*e.run)) {
      Slide slide;
      slide.title = e.label;
      const bool first = s.look_at_figure && s.look_at_figure->evidence == i && s.look_at_figure->figure == f.name;
      slide.figure = std::move(f);
      figures.insert(first ? figures.begin() : figures.end(), std::move(slide));
    }
  }
  for (Slide& f : figures) deck.slides.push_back(std::move(f));
  Slide checks;
  checks.title =
      "The checks: " + std::to_string(run.passed_count()) + " of " + std::to_string(run.checks.size()) + " pass";
  checks.table.push_back({"check", "expected", "observed", "verdict"});
  for (const auto& c : run.checks)
    checks.table.push_back({c.label, expected_text(c), observed_text(c),
                            c.passed ? "pass" : "FAIL" + (c.note.empty() ? "" : ": " + c.note)});
  for (const auto& e : run.evidence)  // a run that did not run fails the scenario as a check does
    if (!e.run) checks.table.push_back({"evidence: " + e.label, "it runs", "-", "FAIL: " + e.error});
  if (!run.look_at_error.empty())
    checks.table.push_back({"the look-at's figure", "", "", "FAIL: " + run.look_at_error});
  deck.slides.push_back(std::move(checks));
  return deck;
}

Status save_scenario_run(const scenario::ScenarioRun& run, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  auto saved = write_text(dir + "/story.md", scenario_markdown(run));
  if (saved) saved = save_json(dir, "checks.json", scenario::to_json(run));
  if (!saved) return saved;
  std::string csv = "id,label,kind,expected,observed,passed,note\n";
  for (const auto& c : run.checks)
    csv += csv_quoted(c.id) + "," + csv_quoted(c.label) + "," + std::string(scenario::check_kind_name(c.kind)) + "," +
           csv_quoted(c.expected) + "," + csv_quoted(c.observed) + "," + (c.passed ? "true" : "false") + "," +
           csv_quoted(c.note) + "\n";
  if (saved = write_text(dir + "/checks.csv", csv); !saved) return saved;
  const SlideDeck deck = scenario_deck(run);
  if (saved = write_deck_pdf(deck, dir + "/slides.pdf"); !saved) return saved;
  auto html = deck_html(deck);
  if (!html) return Error{dir + "/slides.html: " + html.error()};
  if (saved = write_text(dir + "/slides.html", *html); !saved) return saved;
  for (size_t i = 0; i < run.evidence.size(); ++i) {
    const auto& e = run.evidence[i];
    if (!e.run) continue;
    const std::string sub = dir + "/" + evidence_folder(i, e.label);
    saved = save_json(sub, "setup.json", e.run->setup);
    if (saved) saved = save_json(sub, "result.json", e.run->result);
    if (saved) saved = save_figures(figure::experiment_figures(*e.run), sub);
    if (!saved) return saved;
  }
  return {};
}

}  // namespace pl::exporting
