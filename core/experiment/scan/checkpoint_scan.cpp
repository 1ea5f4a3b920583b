#include "core/experiment/scan/checkpoint_scan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "core/experiment/on_device.h"
#include "core/util/printable.h"

namespace pl::experiment {
namespace {

// Why the tensor is left out, or nothing when it is scanned.
std::optional<std::string> left_out(const io::CheckpointTensor& t, const std::optional<NamePattern>& pattern) {
  if (pattern && !pattern->found_in(t.name)) return "does not match --tensors";
  if (!t.is_float()) return t.stored + " integers: not weights";
  if (t.params == 0) return "empty";
  if (!pattern && t.shape.size() < 2)
    return std::to_string(t.shape.size()) +
           "-D: norms, biases and scalars stay as stored (name it with --tensors to scan it)";
  return std::nullopt;
}

struct Choice {
  std::vector<const io::CheckpointTensor*> chosen;
  std::vector<const io::CheckpointTensor*> inputs;  // each one's layer inputs, with activations
  std::vector<SkippedTensor> skipped;
  uint64_t bytes = 0;
};

Expected<Choice> choose(const io::Checkpoint& c, const ScanOptions& o) {
  if (o.candidates.empty()) return Error{"no candidate given"};
  if (o.activation_format && !o.activations) return Error{"an activation format needs the activations"};
  auto pattern = tensor_pattern(o.tensors);
  if (!pattern) return Error{pattern.error()};
  std::map<std::string, const io::CheckpointTensor*> inputs;
  if (o.activations)
    for (const io::CheckpointTensor& t : o.activations->tensors) inputs.emplace(t.name, &t);
  Choice out;
  for (const io::CheckpointTensor& t : c.tensors) {
    if (auto why = left_out(t, *pattern)) {
      out.skipped.push_back({t.name, *why});
      continue;
    }
    if (o.activations) {
      const auto name = input_name(t.name);
      const auto found = name ? inputs.find(*name) : inputs.end();
      if (found == inputs.end()) {
        out.skipped.push_back(
            {t.name, name ? "no " + *name + " in the activations"
                          : std::string("not a layer's weight (NAME.weight): no inputs to weigh it by")});
        continue;
      }
      if (auto why = inputs_mismatch(t, *found->second)) return Error{*why};
      out.inputs.push_back(found->second);
    }
    out.chosen.push_back(&t);
    out.bytes += t.bytes;
  }
  if (out.chosen.empty() && o.activations)
    return Error{"no tensor of " + c.path + (o.tensors.empty() ? "" : " that matches --tensors") +
                 " has its layer's inputs in " + o.activations->path};
  if (out.chosen.empty())
    return Error{"no tensor of " + c.path + " to scan" +
                 (o.tensors.empty() ? std::string(" (no float tensor of two or more dimensions)")
                                    : " matches --tensors '" + printable(o.tensors) + "'")};
  return out;
}

// The kind of a left_out() or activation reason, by its fixed words only: the activation reasons
// hold a tensor's name, which may hold any word ("...empty_proj").
std::string skip_kind(const std::string& reason) {
  auto starts = [&](std::string_view p) { return reason.rfind(p, 0) == 0; };
  auto ends = [&](std::string_view p) {
    return reason.size() >= p.size() && reason.compare(reason.size() - p.size(), p.size(), p) == 0;
  };
  if (ends(" in the activations") || starts("not a layer's weight")) return "without inputs";
  if (starts("does not match --tensors")) return "not matched by --tensors";
  if (ends(" integers: not weights")) return "integer";
  if (reason == "empty") return "empty";
  if (reason.find("-D: ") != std::string::npos && std::isdigit(static_cast<unsigned char>(reason[0])))
    return "1-D or scalar";
  return "other";
}
// The order a summary names them in.
constexpr std::string_view kSkipKinds[] = {"not matched by --tensors", "integer", "empty", "1-D or scalar",
                                           "without inputs",           "other"};

}  // namespace

Expected<std::vector<const io::CheckpointTensor*>> chosen_tensors(const io::Checkpoint& c, const ScanOptions& o) {
  auto chosen = choose(c, o);
  if (!chosen) return Error{chosen.error()};
  return std::move(chosen->chosen);
}

std::string progress_text(const ScanProgress& p, double seconds) {
  const double done = p.bytes_total ? double(p.bytes_done) / double(p.bytes_total) : 0;
  char text[160];
  std::snprintf(text, sizeof text, "%zu of %zu tensors, %.2f of %.2f GB", p.tensors_done, p.tensors_total,
                double(p.bytes_done) / 1e9, double(p.bytes_total) / 1e9);
  std::string out = text;
  if (done > 0.01 && seconds > 1) {
    std::snprintf(text, sizeof text, ", %.0f s left", seconds * (1 - done) / done);
    out += text;
  }
  return out;
}

bool by_output(const ScanResult& r) { return !r.activations.empty(); }

std::string skipped_summary(const std::vector<SkippedTensor>& skipped) {
  std::map<std::string, size_t> counts;
  for (const SkippedTensor& t : skipped) ++counts[skip_kind(t.reason)];
  // In the table's order, whatever the checkpoint's.
  std::string out;
  for (std::string_view kind : kSkipKinds)
    if (auto at = counts.find(std::string(kind)); at != counts.end())
      out += (out.empty() ? "" : ", ") + std::to_string(at->second) + " " + at->first;
  return out;
}

double scored_error(const ScanResult& r, const CandidateScore& c) {
  return by_output(r) ? c.output.error_energy : c.error_energy;
}

double scored_sqnr_db(const ScanResult& r, const CandidateScore& c) {
  return by_output(r) ? c.output.sqnr_db : c.sqnr_db;
}

double scored_energy(const ScanResult& r, const TensorScan& t) { return by_output(r) ? t.output_energy : t.energy; }

Expected<std::optional<NamePattern>> tensor_pattern(const std::string& pattern) {
  if (pattern.empty()) return std::optional<NamePattern>{};
  auto compiled = NamePattern::compile(pattern);
  if (!compiled) return Error{"--tensors '" + printable(pattern) + "' is not a regular expression: " + compiled.error()};
  return std::optional<NamePattern>{std::move(compiled).value()};
}

Expected<ScanResult> scan_checkpoint(const io::Checkpoint& c, const ScanOptions& o,
                                     const std::function<void(const ScanProgress&)>& progress,
                                     const std::atomic<bool>* cancel) {
  auto choice = choose(c, o);
  if (!choice) return Error{choice.error()};
  const std::vector<const io::CheckpointTensor*>& chosen = choice->chosen;
  ScanResult r;
  r.checkpoint = c.path;
  for (const Candidate& k : o.candidates) r.candidates.push_back(k.text());
  r.skipped = choice->skipped;
  r.bytes = choice->bytes;
  // The seed is part of a stochastic scan's rounding: parts merge only when they drew alike.
  r.rounding = o.cast.rounding == Rounding::Stochastic ? "stochastic, seed " + std::to_string(o.cast.seed)
                                                       : std::string(rounding_name(o.cast.rounding));
  if (o.activations) r.activations = o.activations->path;
  if (o.activation_format) r.activation_format = o.activation_format->text();
  // A device only for float candidates (integers round on the CPU, as in the cast experiment).
  const bool floats =
      std::any_of(o.candidates.begin(), o.candidates.end(), [](const Candidate& k) { return is_float(k.dtype); });
  const DeviceRounding device(floats ? o.backend : BackendChoice::Cpu);
  r.backend_note = device.note();
  TensorScanOptions to;
  to.cast = o.cast;
  to.device = device.rounder();
  to.chunk_elements = o.chunk_elements;
  ScanProgress p;
  p.tensors_total = chosen.size();
  p.bytes_total = r.bytes;
  if (progress) progress(p);
  std::optional<size_t> mapped_shard;
  io::MappedFile mapped;
  std::string device_error;
  bool on_device = false;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const io::CheckpointTensor* t = chosen[i];
    std::optional<LayerInputs> inputs;
    if (o.activations) {
      auto read = read_layer_inputs(*o.activations, *choice->inputs[i], o.activation_format, o.cast);
      if (!read) return Error{read.error()};
      inputs = std::move(read).value();
    }
    to.inputs = inputs ? &*inputs : nullptr;
    if (mapped_shard != t->shard) {
      auto m = io::MappedFile::open(c.shards[t->shard]);
      if (!m) return Error{m.error()};
      mapped = std::move(m).value();
      mapped_shard = t->shard;
    }
    const uint64_t before = p.bytes_done;
    auto scanned = scan_tensor(
        mapped, *t, o.candidates, to,
        [&](uint64_t bytes) {
          p.bytes_done = before + bytes;
          if (progress) progress(p);
        },
        cancel, device_error, on_device);
    if (!scanned) return Error{scanned.error()};
    r.tensors.push_back(std::move(scanned).value());
    r.tensors.back().file = c.shards[t->shard];
    p.bytes_done = before + t->bytes;
    ++p.tensors_done;
    if (progress) progress(p);
  }
  if (on_device) r.ran_on = device.ran_on();
  if (!device_error.empty()) r.backend_note = device.failed(device_error);
  return r;
}

}  // namespace pl::experiment
