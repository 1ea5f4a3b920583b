// The Checkpoint panel's candidate list as a list to edit, not a comma-separated spec string:
// each candidate with its full and short names (the table's headers use the short ones) and a
// button to drop it; a dtype, a recipe (only those the dtype takes) and a group size to add one;
// and the defaults back. (`scan --candidates` takes the spellings the list shows.)
#pragma once

#include <string>

namespace pl::ui {

class CandidateEditor {
 public:
  // A combo whose preview names the candidates in `list` (a DTYPE[:RECIPE[:BLOCK]] list, as
  // `scan --candidates` takes) and whose drop-down edits them. Returns true when `list` changed.
  bool draw(const char* label, std::string& list, float width);

 private:
  int dtype_ = -1;  // the dtype to add: a row of all_dtypes(), -1 before the first draw
  int recipe_ = 0;  // the recipe to add: a ScalingKind
  int group_ = 128;
  std::string error_;  // why the last add was refused
};

}  // namespace pl::ui
