// A scenario's run written as a slide-ready folder: slides.pdf (the title and story, each figure
// full page -- the look-at's first -- and the checks with expected against observed, one page
// or more) and slides.html (the same, self-contained), story.md (title, story, what to look at
// and the checks with what backs each), checks.json, checks.csv, and each evidence experiment in
// its folder, evidence_folder() (setup.json that `precision-lab run` repeats, result.json, every
// figure as PNG, SVG, PDF and CSV).
#pragma once

#include <string>

#include "core/export/slide_deck.h"
#include "core/scenario/scenario_run.h"
#include "core/util/expected.h"

namespace pl::exporting {

Status save_scenario_run(const scenario::ScenarioRun& run, const std::string& dir);

// The slides: a title slide, one per figure, the checks.
exporting::SlideDeck scenario_deck(const scenario::ScenarioRun& run);

// The folder of evidence run i: its number and its label, as a file name a person can read:
// "evidence-1-float8-e4m3fn-mx-a-float8-e8m0fnu-scale-per-32" (lower case, letters and digits,
// runs of anything else one '-' (an apostrophe nothing), cut at a word to at most 48 characters
// after the number).
std::string evidence_folder(size_t i, const std::string& label);

// story.md's text.
std::string scenario_markdown(const scenario::ScenarioRun& run);

}  // namespace pl::exporting
