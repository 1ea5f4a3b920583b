#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "core/util/printable.h"
#include "core/dtype/device/cast_policy.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/scan/candidate.h"
#include "core/experiment/spec/experiment_file.h"
#include "core/io/file_read.h"
#include "core/promote/engine.h"
#include "core/promote/py_value.h"
#include "core/scenario/probe.h"
#include "core/scenario/scenario.h"
#include "core/util/number_text.h"

namespace pl::scenario {
namespace {

using nlohmann::json;

std::string_view kKindKeys[] = {"promote", "cast", "int_cast", "running_sum", "metric", "api", "peak", "sum"};

Expected<MetricRef> metric_ref(const json& j, const std::string& where) {
  if (!j.is_object()) return Error{where + ": must be {\"evidence\": N, \"pointer\": \"/...\"}"};
  MetricRef r;
  for (auto it = j.begin(); it != j.end(); ++it) {
    // Signed too: JSON written by code (not parsed from text) holds 0 as a signed integer.
    if (it.key() == "evidence" && it.value().is_number_integer() && it.value().get<int64_t>() >= 0)
      r.evidence = it.value().get<size_t>();
    else if (it.key() == "pointer" && it.value().is_string()) r.pointer = it.value().get<std::string>();
    else if (it.key() == "evidence" || it.key() == "pointer")
      return Error{where + ": '" + it.key() + "' must be " + (it.key() == "evidence" ? "an index" : "a string")};
    else return Error{where + ": unknown key '" + printable(it.key()) + "'"};
  }
  if (r.pointer.empty() || r.pointer[0] != '/') return Error{where + ": 'pointer' must start with '/'"};
  return r;
}

Expected<Bounds> bounds_from(const json& j, const std::string& where) {
  if (!j.is_object())
    return Error{where + ": a metric expects {\"min\", \"max\", \"above\", \"below\", \"factor\", \"plus\"}"};
  Bounds b;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k == "min" || k == "max" || k == "factor" || k == "plus") {
      if (!it.value().is_number()) return Error{where + ": '" + k + "' must be a number"};
      const double v = it.value().get<double>();
      if (k == "min") b.min = v;
      else if (k == "max") b.max = v;
      else if (k == "factor") b.factor = v;
      else b.plus = v;
    } else if (k == "above" || k == "below") {
      auto r = metric_ref(it.value(), where + "." + k);
      if (!r) return Error{r.error()};
      (k == "above" ? b.above : b.below) = *r;
    } else {
      return Error{where + ": unknown key '" + printable(k) + "'"};
    }
  }
  if (!b.min && !b.max && !b.above && !b.below) return Error{where + ": a metric needs min, max, above or below"};
  if ((b.factor != 1 || b.plus != 0) && !b.above && !b.below)
    return Error{where + ": 'factor' and 'plus' apply to 'above' or 'below'"};
  if (b.factor != 1 && b.plus != 0) return Error{where + ": a metric takes 'factor' or 'plus', not both"};
  return b;
}

Expected<Check> check_from(const json& j, size_t index) {
  std::string where = "checks[" + std::to_string(index) + "]";
  if (!j.is_object()) return Error{where + ": must be an object"};
  Check c;
  bool has_kind = false, has_expect = false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "id" || k == "label" || k == "derivation") {
      if (!v.is_string()) return Error{where + ": '" + k + "' must be a string"};
      (k == "id" ? c.id : k == "label" ? c.label : c.derivation) = v.get<std::string>();
    } else if (k == "expect") {
      has_expect = true;
    } else if (std::find(std::begin(kKindKeys), std::end(kKindKeys), k) != std::end(kKindKeys)) {
      if (has_kind)
        return Error{where + ": more than one of promote, cast, int_cast, running_sum, metric, api, peak, sum"};
      has_kind = true;
      c.kind = static_cast<CheckKind>(std::find(std::begin(kKindKeys), std::end(kKindKeys), k) - std::begin(kKindKeys));
      c.params = v;
    } else {
      return Error{where + ": unknown key '" + printable(k) + "'"};
    }
  }
  if (c.id.empty()) return Error{where + ": 'id' is required"};
  where = "check '" + c.id + "'";
  if (c.label.empty()) return Error{where + ": 'label' is required"};
  if (!has_kind) return Error{where + ": needs one of promote, cast, int_cast, running_sum, metric, api, peak, sum"};
  if (!has_expect) return Error{where + ": 'expect' is required"};
  const json& e = j["expect"];
  if (c.kind == CheckKind::Metric) {
    auto r = metric_ref(c.params, where + ".metric");
    if (!r) return Error{r.error()};
    c.metric = *r;
    auto b = bounds_from(e, where + ".expect");
    if (!b) return Error{b.error()};
    c.bounds = *b;
    // Bounds on a measured number are reasoned, not recorded: say how they were reached.
    if (c.derivation.empty()) return Error{where + ": a metric's bounds need a 'derivation'"};
    return c;
  }
  if (!e.is_string())
    return Error{where + ": 'expect' must be a string (\"inf\", \"-56\", \"float32\", \"RuntimeError: ...\")"};
  c.expect = e.get<std::string>();
  // A vendor's figure cannot be recomputed by a script: the check cites where it is printed.
  if (c.kind == CheckKind::Peak && c.derivation.empty())
    return Error{where + ": a peak check needs a 'derivation' citing the published figures"};
  // No framework computes a modelled adder's sum: the check shows the sum worked by hand.
  if (c.kind == CheckKind::Sum && c.derivation.empty())
    return Error{where + ": a sum check needs a 'derivation': the sum worked by hand"};
  // A bad dtype or value in a check is found when the file is read.
  if (auto ok = check_probe(c); !ok) return Error{where + ": " + ok.error()};
  return c;
}

Expected<Fact> fact_from(const json& j, size_t index) {
  const std::string where = "facts[" + std::to_string(index) + "]";
  if (!j.is_object()) return Error{where + ": must be {\"id\", \"says\", and \"min\"/\"max\" or \"equals\"}"};
  Fact f;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "id" || k == "says" || k == "equals") {
      if (!v.is_string() || v.get<std::string>().empty())
        return Error{where + ": '" + k + "' must be a non-empty string"};
      if (k == "id") f.id = v.get<std::string>();
      else if (k == "says") f.says = v.get<std::string>();
      else f.equals = v.get<std::string>();
    } else if (k == "min" || k == "max") {
      if (!v.is_number()) return Error{where + ": '" + k + "' must be a number"};
      (k == "min" ? f.min : f.max) = v.get<double>();
    } else {
      return Error{where + ": unknown key '" + printable(k) + "'"};
    }
  }
  if (f.id.empty() || f.says.empty()) return Error{where + ": 'id' and 'says' are required"};
  if (!f.min && !f.max && !f.equals) return Error{"fact '" + f.id + "': needs 'min', 'max' or 'equals'"};
  if (f.equals && (f.min || f.max)) return Error{"fact '" + f.id + "': 'equals' goes without 'min' and 'max'"};
  return f;
}

}  // namespace

std::string_view check_kind_name(CheckKind k) { return kKindKeys[static_cast<int>(k)]; }

namespace {

// One look_at_panels entry, every name checked against what the panel can show.
Expected<Scenario::PanelLink> panel_link_from(const json& v) {
  if (!v.is_object()) return Error{"a link is a JSON object"};
  Scenario::PanelLink l;
  const std::pair<const char*, std::string*> fields[] = {{"label", &l.label},
                                                         {"panel", &l.panel},
                                                         {"framework", &l.framework},
                                                         {"op", &l.op},
                                                         {"b_kind", &l.b_kind},
                                                         {"value", &l.value},
                                                         {"path", &l.path},
                                                         {"compare_with", &l.compare_with},
                                                         {"select", &l.select},
                                                         {"a_device", &l.a_device},
                                                         {"b_device", &l.b_device},
                                                         {"bias", &l.bias},
                                                         {"b_value", &l.b_value},
                                                         {"checkpoint", &l.checkpoint},
                                                         {"candidates", &l.candidates}};
  std::string row;
  bool evidence = false;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "evidence") {  // (the one number among the names)
      if (!it.value().is_number_unsigned()) return Error{"'evidence' must be an evidence run's number, from 0"};
      l.evidence.evidence = it.value().get<size_t>();
      evidence = true;
      continue;
    }
    std::string* field = it.key() == "row" ? &row : it.key() == "figure" ? &l.evidence.figure : nullptr;
    for (const auto& [key, out] : fields)
      if (it.key() == key) field = out;
    if (!field) return Error{"unknown key '" + it.key() + "'"};
    if (!it.value().is_string() || it.value().get<std::string>().empty())
      return Error{"'" + it.key() + "' must be a non-empty string"};
    *field = it.value().get<std::string>();
  }
  if (l.label.empty()) return Error{"'label' is required (the link's text)"};
  if (l.panel == "experiment") {
    if (!evidence || l.evidence.figure.empty() || v.size() != 4)
      return Error{"the experiment panel takes 'evidence' and 'figure'"};
    return l;
  }
  if (evidence || !l.evidence.figure.empty()) return Error{"'evidence' and 'figure' are for the experiment panel"};
  if (l.panel == "checkpoint") {
    if (l.checkpoint.empty() || v.size() != (l.candidates.empty() ? 3u : 4u))
      return Error{"the checkpoint panel takes 'checkpoint' and 'candidates'"};
    if (!l.candidates.empty())
      if (auto c = experiment::parse_candidates(l.candidates); !c) return Error{"'candidates': " + c.error()};
    return l;
  }
  if (!l.checkpoint.empty() || !l.candidates.empty())
    return Error{"'checkpoint' and 'candidates' are for the checkpoint panel"};
  if (l.panel == "promotion") {
    if (!row.empty() || !l.value.empty() || !l.path.empty())
      return Error{"'row', 'value' and 'path' are for the formats panel"};
    const promote::Engine* e = promote::find_engine(l.framework);
    if (!e) return Error{"'framework': unknown engine '" + l.framework + "' (" + promote::engine_names() + ")"};
    if (std::find(e->ops.begin(), e->ops.end(), l.op) == e->ops.end())
      return Error{"'op': " + l.framework + " has no op '" + l.op + "'"};
    if (!l.b_kind.empty() && !promote::parse_operand_kind(l.b_kind))
      return Error{"'b_kind' must be tensor, zerodim or scalar"};
    if (!l.b_value.empty()) {
      const auto kind = l.b_kind.empty() ? promote::OperandKind::Tensor : *promote::parse_operand_kind(l.b_kind);
      if (kind == promote::OperandKind::Tensor) return Error{"'b_value' is for a zero-dim or scalar b ('b_kind')"};
      if (auto v = promote::parse_py_value(l.b_value); !v) return Error{"'b_value': " + v.error()};
      const promote::Engine* o = l.compare_with.empty() ? nullptr : promote::find_engine(l.compare_with);
      if (!promote::models_value(e->values, kind) && !(o && promote::models_value(o->values, kind)))
        return Error{"'b_value': neither grid's engine reads a value: " + promote::unmodelled_value_message(*e, kind)};
    }
    if (l.bias.empty() && promote::needs_bias(*e, l.op)) return Error{"'bias': " + promote::bias_needed_message(l.op)};
    if (!l.bias.empty()) {
      if (std::find(e->bias_ops.begin(), e->bias_ops.end(), l.op) == e->bias_ops.end())
        return Error{"'bias': " + l.framework + "'s " + l.op + " takes no bias"};
      if (auto t = parse_dtype(l.bias); !t) return Error{"'bias': " + t.error()};
    }
    promote::Query placed;
    placed.b.kind = l.b_kind.empty() ? promote::OperandKind::Tensor : *promote::parse_operand_kind(l.b_kind);
    if (auto ok = promote::place_operands(*e, placed, l.a_device, l.b_device, "'a_device'", "'b_device'"); !ok)
      return Error{ok.error()};
    if (!l.compare_with.empty()) {
      const promote::Engine* o = promote::find_engine(l.compare_with);
      if (!o) return Error{"'compare_with': unknown engine '" + l.compare_with + "'"};
      if (std::find(o->ops.begin(), o->ops.end(), l.op) == o->ops.end())
        return Error{"'compare_with': " + l.compare_with + " has no op '" + l.op + "'"};
    }
    if (!l.select.empty()) {
      const size_t comma = l.select.find(',');
      if (comma == std::string::npos) return Error{"'select' takes \"A,B\""};
      for (const std::string& d : {l.select.substr(0, comma), l.select.substr(comma + 1)})
        if (auto t = parse_dtype(d); !t) return Error{"'select': " + t.error()};
    }
    return l;
  }
  if (l.panel == "formats") {
    if (!l.framework.empty() || !l.op.empty() || !l.b_kind.empty() || !l.compare_with.empty() || !l.select.empty() ||
        !l.a_device.empty() || !l.b_device.empty() || !l.bias.empty() || !l.b_value.empty())
      return Error{"the formats panel takes 'value', 'row' and 'path'"};
    if (l.value.empty()) return Error{"'value' is required: what the Formats panel shows in every format"};
    if (auto v = parse_number_expression(l.value); !v) return Error{"'value': " + v.error()};
    if (CastPath p; !l.path.empty() && !parse_cast_path(l.path.c_str(), &p))
      return Error{"'path' must be direct or via-float32"};
    if (!row.empty()) {
      auto t = parse_dtype(row);
      if (!t) return Error{"'row': " + t.error()};
      if (!is_float(*t) && !is_integer(*t) && *t != DType::bool_)
        return Error{"'row': the Formats panel has no row for " + std::string(name(*t))};
      l.row = *t;
    }
    return l;
  }
  return Error{"'panel' must be promotion, formats, checkpoint or experiment"};
}

// The first string (a value or a key) holding a control character other than a line break, as a
// JSON pointer and the character: a scenario's texts are printed and drawn as written, and an
// escape sequence in a story would reach the terminal as one. The C1 controls (U+0080 to U+009F,
// 0xC2 0x80 to 0xC2 0x9F in UTF-8) are refused too: a terminal may read U+009B as CSI.
std::optional<std::string> control_character(const json& j, const std::string& at) {
  auto bad = [](const std::string& s) -> std::optional<unsigned> {
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if ((c < 0x20 && c != '\n') || c == 0x7f) return c;
      if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f &&
          static_cast<unsigned char>(s[i + 1]) >= 0x80)
        return 0x100u + static_cast<unsigned char>(s[i + 1]);  // (a C1 control, said as U+00NN)
    }
    return std::nullopt;
  };
  auto said = [](const std::string& where, unsigned c) {
    char hex[12];
    if (c >= 0x100) std::snprintf(hex, sizeof hex, "U+%04X", c - 0x100);
    else std::snprintf(hex, sizeof hex, "\\x%02x", c);
    return "'" + (where.empty() ? std::string("/") : where) + "' holds the control character " + hex;
  };
  if (j.is_string()) {
    if (auto c = bad(j.get_ref<const std::string&>())) return said(at, *c);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      // (a JSON pointer's token: '~' as "~0" and '/' as "~1", RFC 6901, so that "a/b" is one key)
      std::string token;
      for (char c : printable(it.key())) token += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      const std::string where = at + "/" + token;
      if (auto c = bad(it.key())) return said(where, *c);
      if (auto found = control_character(it.value(), where)) return found;
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      if (auto found = control_character(j[i], at + "/" + std::to_string(i))) return found;
  }
  return std::nullopt;
}

}  // namespace

Expected<Scenario> scenario_from_json(const json& j, const std::string& name) {
  if (!j.is_object()) return Error{"a scenario must be a JSON object"};
  if (auto found = control_character(j, "")) return Error{*found};
  Scenario s;
  s.name = name;
  s.panel = "experiment";
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "name" || k == "title" || k == "story" || k == "look_at" || k == "panel") {
      if (!v.is_string()) return Error{"'" + k + "' must be a string"};
      std::string text = v.get<std::string>();
      if (k == "name" && text != name) return Error{"'name' is '" + text + "' but the file is " + name + ".json"};
      if (k == "title") s.title = text;
      if (k == "story") s.story = text;
      if (k == "look_at") s.look_at = text;
      if (k == "panel") s.panel = text;
    } else if (k == "look_at_figure") {
      if (!v.is_object() || v.size() != 2 || !v.contains("evidence") || !v["evidence"].is_number_integer() ||
          v["evidence"].get<long long>() < 0 || !v.contains("figure") || !v["figure"].is_string() ||
          v["figure"].get<std::string>().empty())
        return Error{"'look_at_figure' must be {\"evidence\": N, \"figure\": \"NAME\"}"};
      s.look_at_figure = Scenario::FigureRef{v["evidence"].get<size_t>(), v["figure"].get<std::string>()};
    } else if (k == "look_at_panels") {
      if (!v.is_array()) return Error{"'look_at_panels' must be an array of links"};
      for (size_t i = 0; i < v.size(); ++i) {
        auto link = panel_link_from(v[i]);
        if (!link) return Error{"look_at_panels[" + std::to_string(i) + "]: " + link.error()};
        s.look_at_panels.push_back(std::move(link).value());
      }
    } else if (k == "evidence") {
      if (!v.is_array()) return Error{"'evidence' must be an array"};
      for (size_t i = 0; i < v.size(); ++i) {
        const json& e = v[i];
        const bool has_tab = e.is_object() && e.contains("tab");
        if (!e.is_object() || !e.contains("label") || !e["label"].is_string() || !e.contains("setup") ||
            !e["setup"].is_object() || e.size() != (has_tab ? 3u : 2u))
          return Error{"evidence[" + std::to_string(i) +
                       "]: must be {\"label\": ..., \"setup\": {experiment file}} with an optional \"tab\""};
        // A tab's name is a few words: longer, the tab bar cuts it where the runs differ.
        auto characters = [](const std::string& s) {  // UTF-8: every byte but continuation bytes
          return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
        };
        if (has_tab && (!e["tab"].is_string() || e["tab"].get<std::string>().empty() ||
                        characters(e["tab"].get<std::string>()) > kEvidenceTabChars))
          return Error{"evidence[" + std::to_string(i) + "]: 'tab' must be a text of 1 to " +
                       std::to_string(kEvidenceTabChars) + " characters"};
        // A scenario runs its evidence on every Run, with no --force to confirm a long sweep: a
        // dot sweep of a thousand hours started. Bounded by its count of products, not by a timed
        // sample: reading a file must not run one (nor open a device for it).
        if (const auto terms = experiment::file_sweep_terms(e["setup"]); terms && *terms > kEvidenceMostTerms) {
          char what[96];
          std::snprintf(what, sizeof what, "this sweep sums %.2g products, past %.0g", *terms, kEvidenceMostTerms);
          return Error{"evidence[" + std::to_string(i) + "]: " + what + ": a scenario's evidence must run in minutes"};
        }
        s.evidence.push_back({e["label"].get<std::string>(), e["setup"], has_tab ? e["tab"].get<std::string>() : ""});
      }
    } else if (k == "checks") {
      if (!v.is_array()) return Error{"'checks' must be an array"};
    } else if (k == "facts") {
      if (!v.is_array()) return Error{"'facts' must be an array"};
      for (size_t i = 0; i < v.size(); ++i) {
        auto f = fact_from(v[i], i);
        if (!f) return Error{f.error()};
        for (const Fact& o : s.facts)
          if (o.id == f->id) return Error{"fact id '" + f->id + "' appears twice"};
        s.facts.push_back(std::move(*f));
      }
    } else {
      return Error{"unknown key '" + k + "'"};
    }
  }
  // After the loop: checks refer to evidence, and JSON objects have no key order to rely on.
  const json no_checks = json::array();
  const json& checks = j.contains("checks") ? j["checks"] : no_checks;
  std::set<std::string> ids;
  for (size_t i = 0; i < checks.size(); ++i) {
    auto c = check_from(checks[i], i);
    if (!c) return Error{c.error()};
    if (!ids.insert(c->id).second) return Error{"check id '" + c->id + "' appears twice"};
    if (c->kind == CheckKind::Metric)
      for (const MetricRef* r :
           {&c->metric, c->bounds.above ? &*c->bounds.above : nullptr, c->bounds.below ? &*c->bounds.below : nullptr})
        if (r && r->evidence >= s.evidence.size())
          return Error{"check '" + c->id + "': evidence " + std::to_string(r->evidence) +
                       " does not exist (there are " + std::to_string(s.evidence.size()) + ")"};
    s.checks.push_back(std::move(*c));
  }
  for (size_t i = 0; i < s.look_at_panels.size(); ++i)
    if (Scenario::PanelLink& l = s.look_at_panels[i]; l.panel == "experiment") {
      if (l.evidence.evidence >= s.evidence.size())
        return Error{"look_at_panels[" + std::to_string(i) + "]: evidence " + std::to_string(l.evidence.evidence) +
                     " does not exist (there are " + std::to_string(s.evidence.size()) + ")"};
      l.setup = s.evidence[l.evidence.evidence].setup;
    }
  if (s.look_at_figure && s.look_at_figure->evidence >= s.evidence.size())
    return Error{"'look_at_figure': evidence " + std::to_string(s.look_at_figure->evidence) +
                 " does not exist (there are " + std::to_string(s.evidence.size()) + ")"};
  if (s.title.empty()) return Error{"'title' is required"};
  if (s.story.empty()) return Error{"'story' is required"};
  if (s.checks.empty()) return Error{"a scenario needs at least one check"};
  // A fact backs words the scenario shows: its story, its look-at, or a check's derivation (the
  // NumPy run a derivation quotes).
  for (const Fact& f : s.facts) {
    bool said = s.story.find(f.says) != std::string::npos || s.look_at.find(f.says) != std::string::npos;
    for (const Check& c : s.checks) said = said || c.derivation.find(f.says) != std::string::npos;
    if (!said)
      return Error{"fact '" + f.id + "': the story, the look-at and the derivations do not say '" + f.says + "'"};
  }
  static const std::set<std::string> panels{"experiment", "promotion", "formats", "throughput", "checkpoint"};
  if (!panels.count(s.panel)) return Error{"'panel' must be experiment, promotion, formats, throughput or checkpoint"};
  return s;
}

Expected<Scenario> load_scenario(const std::string& path) {
  auto read = io::read_json_file(path);
  if (!read) return Error{read.error()};
  const json& j = *read;
  std::string stem = path.substr(path.find_last_of('/') + 1);
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  auto s = scenario_from_json(j, stem);
  if (!s) return Error{path + ": " + s.error()};
  Scenario out = std::move(s).value();
  out.source = path;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  auto resolve = [&](std::string& file) {
    if (!file.empty() && std::filesystem::path(file).is_relative()) file = (folder / file).lexically_normal().string();
  };
  auto resolve_setup = [&](json& setup) {
    for (const char* key : {"checkpoint", "activations"})
      if (setup.is_object() && setup.contains(key) && setup[key].is_string()) {
        std::string file = setup[key].get<std::string>();
        resolve(file);
        setup[key] = file;
      }
  };
  for (Evidence& e : out.evidence) resolve_setup(e.setup);
  for (Scenario::PanelLink& l : out.look_at_panels) {
    resolve(l.checkpoint);
    resolve_setup(l.setup);
  }
  return out;
}

}  // namespace pl::scenario
