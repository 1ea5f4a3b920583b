#include "app/cli/cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "app/cli/figure_options.h"
#include "app/cli/stderr_filter.h"
#include "app/cli/window_options.h"
#include "core/export/pdf_dates.h"
#include "core/export/result_folder.h"
#include "core/util/edit_distance.h"
#include "core/util/exception_text.h"
#include "core/util/interrupt.h"
#include "core/util/number_text.h"
#include "core/util/printable.h"
#include "core/util/scratch_paths.h"

namespace pl::cli {
namespace {

std::vector<std::string>& stashed_values() {
  static std::vector<std::string> v;
  return v;
}

// CLI11 reads "-1" and "-0x1p-2" as values (a digit follows the dash) but "-inf", "-nan" and
// "-.5" as unknown options. Such values travel as "-9#<k>" tokens and come back unchanged
// through restore_value(), in their original position. An argument that already reads "-9#..."
// is stashed too, so that every such token is one of ours ("-9#x" as a value ended in
// std::terminate, std::stoul's exception).
std::vector<std::string> protect_negative_values(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool digit_after_dash = a.size() > 1 && std::isdigit(static_cast<unsigned char>(a[1]));
    const bool looks_stashed = a.rfind("-9#", 0) == 0;
    if (looks_stashed || (a.size() > 1 && a[0] == '-' && a[1] != '-' && !digit_after_dash && parse_number(a).ok())) {
      out.push_back("-9#" + std::to_string(stashed_values().size()));
      stashed_values().push_back(a);
    } else {
      out.push_back(a);
    }
  }
  return out;
}

// CLI11 answers a mistyped command ("precision-lab promot") with "A subcommand is required",
// which hides the typo. The message naming it, and the nearest command when one is close; empty
// when `given` is a command.
std::string unknown_command_message(const CLI::App& app, const std::string& given) {
  std::string names, nearest;
  size_t nearest_d = ~size_t{0};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string& n = sub->get_name();
    if (n == given) return {};
    names += (names.empty() ? "" : ", ") + n;
    if (size_t d = edit_distance(given, n); d < nearest_d) nearest_d = d, nearest = n;
  }
  // (a third of the letters wrong, at least two: "promot", "matmull", "roundtrp", not "x")
  const bool close = nearest_d <= std::max<size_t>(2, given.size() / 3) && nearest_d < given.size();
  return "unknown command '" + given + "'; " + (close ? "did you mean '" + nearest + "'? " : "") + "commands: " + names;
}

// CLI11's wording of three errors, said as the others are: "--m: At Most 1 required but
// received 2", "could not convert: --lr = 1,5", "--size: 1 required TEXT missing". (`what`
// is printable already.)
std::string plain_parse_error(const std::string& what) {
  static const std::regex repeated(R"(^(-[-\w]+): At Most 1 required but received (\d+)$)");
  static const std::regex conversion(R"(^[Cc]ould not convert: (-[-\w]+) = (.*)$)");
  static const std::regex missing(R"(^(-[-\w]+): 1 required \w+ missing$)");
  std::smatch m;
  if (std::regex_match(what, m, repeated)) return m[1].str() + " is given " + m[2].str() + " times: give it once";
  if (std::regex_match(what, m, conversion)) return m[1].str() + ": '" + m[2].str() + "' is not a value it takes";
  if (std::regex_match(what, m, missing)) return m[1].str() + " needs a value";
  return what;
}

// Ctrl-C, SIGTERM and SIGHUP (the terminal closed, an ssh connection dropped) ask the work to stop
// (interrupt.h); the command then cleans up on its normal path and run() exits 128 + the
// signal. A second one ends the process at once, so that work slow to see the request can still
// be stopped: what it was writing under a temporary name is removed first (scratch_paths.h).
void on_signal(int sig) {
  if (interrupt_signal() == 0) {
    note_interrupt(sig);
    return;
  }
  remove_scratch_paths();
  // The default action once the handler returns (the signal is blocked until then): the shell
  // sees the process killed by it.
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = 0;
  // One handler at a time: a SIGTERM during a SIGINT's removal of the scratch paths waits for it.
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, sig);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // A SIGHUP the caller ignores stays ignored: `nohup precision-lab scan ...` is asked to
    // outlive its terminal.
    struct sigaction was {};
    if (sig == SIGHUP && sigaction(sig, nullptr, &was) == 0 && was.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

// After the work, where one of those signals stopped it: the signal said on stderr with what became
// of the work, and the exit status, 128 + the signal. 0 where nothing interrupted it.
int interrupted_exit(const char* outcome) {
  const int sig = interrupt_signal();
  if (sig == 0) return 0;
  std::fprintf(stderr, "error: interrupted (%s): %s\n", strsignal(sig), outcome);
  return 128 + sig;
}

// What a command printed must have reached its destination: a full disk or a closed pipe
// under standard output is an error, not a success (coreutils' close_stdout).
int finish_stdout(int status) {
  std::cout.flush();
  const bool failed = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return status;
  std::fprintf(stderr, "error: writing to standard output failed: %s\n", std::strerror(errno ? errno : EIO));
  return status == kExitOk ? kExitFailed : status;
}

// The first message `check` gives for an option and its value -- "--name=value", or "--name" and
// the argument after it (for a flag that argument is a positional; each check asks only about
// options it knows take values).
template <typename Check>
Status first_option_problem(int argc, char** argv, Check&& check) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.size() < 3 || a.substr(0, 2) != "--") continue;
    Status st;
    if (const size_t eq = a.find('='); eq != std::string_view::npos) st = check(a.substr(0, eq), a.substr(eq + 1));
    else if (i + 1 < argc) st = check(a, std::string_view(argv[i + 1]));
    if (!st) return st;
  }
  return {};
}

// An option given an empty value (--out "", --backend=) is refused: read as "not given", it
// would silently take its default.
Status empty_option_value(int argc, char** argv) {
  return first_option_problem(argc, argv, [](std::string_view name, std::string_view value) -> Status {
    if (!value.empty()) return {};
    return Error{std::string(name) + " is given an empty value: leave the option out for its default, or give a value"};
  });
}

// The options that take a whole number: CLI11 converted "-1" and 2^64 into an unsigned option
// by wrapping them (--seed -1 became 2^64 - 1). Each value must be digits only and fit 64 bits;
// each command checks its own range after.
Status not_a_whole_number(int argc, char** argv) {
  static constexpr std::string_view kWholeNumbers[] = {
      "--seed",     "--elements", "--reps",          "--trials", "--threads", "--m",      "--n",
      "--rows",     "--cols",     "--layers",        "--width",  "--batch",   "--radius", "--steps",
      "--features", "--samples",  "--torch-threads", "--groups", "--look-at"};
  // (matmul's --k is one length; dot's is a list of them, which dot checks.)
  const bool one_k = argc > 1 && std::string_view(argv[1]) == "matmul";
  return first_option_problem(argc, argv, [one_k](std::string_view name, std::string_view value) -> Status {
    const bool whole_option =
        std::find(std::begin(kWholeNumbers), std::end(kWholeNumbers), name) != std::end(kWholeNumbers) ||
        (one_k && name == "--k");
    if (value.empty() || !whole_option) return {};
    const Status whole = whole_number(value);
    return whole.ok() ? whole : Error{std::string(name) + ": " + whole.error()};
  });
}

}  // namespace

Status whole_number(std::string_view value) {
  uint64_t x = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
  if (ec == std::errc() && end == value.data() + value.size()) return {};
  return Error{"'" + std::string(value.substr(0, 40)) + "' is not a whole number (digits only, no sign, below 2^64)"};
}

std::string restore_value(const std::string& arg) {
  if (arg.rfind("-9#", 0) != 0) return arg;
  size_t k = 0;
  const char* end = arg.data() + arg.size();
  const auto [rest, ec] = std::from_chars(arg.data() + 3, end, k);
  return ec == std::errc{} && rest == end && k < stashed_values().size() ? stashed_values()[k] : arg;
}

int run(int argc, char** argv, const WindowRunner& window) {
  filter_stderr();  // (where it cannot be made, messages go out as written)
  CLI::App app{
      "Precision Lab: what happens to numbers when deep-learning code mixes and lowers dtypes.\n"
      "Without a command it opens the window (with the window options below).",
      "precision-lab"};
  app.require_subcommand(0, 1);
  ui::GuiOptions window_options;
  WindowFlags window_flags;
  add_window_options(app, window_options, window_flags);
  std::map<CLI::App*, Runner> runners;
  // The commands that write figures take their size and resolution, and the folder option the
  // figures go to (scenario: on `export`, which always writes; bench checks its own, as --save
  // is one op's).
  struct Drawing {
    std::string_view command, folder;
    // false where the command checks its own --force: dot's also runs a sweep estimated past 10
    // minutes, matmul's also replaces --out's file
    bool force_is_for_the_folder = true;
  };
  static constexpr Drawing kDrawing[] = {
      {"explore", "--out"}, {"bench", ""},          {"dot", "--save", false}, {"matmul", "--save", false},
      {"run", "--out"},     {"mlp", "--save"},      {"train", "--save"},      {"roundtrip", "--save"},
      {"scan", "--out"}};
  std::map<CLI::App*, std::string_view> figure_folders;
  std::set<CLI::App*> force_is_for_the_folder;
  auto add = [&](const char* name, const char* help, Runner (*adder)(CLI::App&)) {
    CLI::App* sub = app.add_subcommand(name, help);
    runners[sub] = adder(*sub);
    for (const Drawing& d : kDrawing)
      if (d.command == name) {
        add_figure_options(*sub);
        if (!d.folder.empty()) figure_folders[sub] = d.folder;
        if (!d.folder.empty() && d.force_is_for_the_folder) force_is_for_the_folder.insert(sub);
      }
  };
  add("formats", "Print the table of number formats", add_formats);
  add("cast", "Round values into a format and show bits and error", add_cast);
  add("decode", "Decode bit patterns of a format", add_decode);
  add("explore", "Where a value sits in each format: neighbours, ulp, rounding interval, number line", add_explore);
  add("bench", "Measure conversion throughput against a plain copy", add_bench);
  add("devices", "List compute backends and devices", add_devices);
  add("promote", "What a framework does with a pair of dtypes: result or exact error, rule, fixes", add_promote);
  add("dot", "Dot-product error versus length for accumulation models, with the classical bounds", add_dot);
  add("matmul", "One matrix product in any dtypes: error against float64, split by where it came from", add_matmul);
  add("run", "Run an experiment file (JSON) and write its results into a folder", add_run);
  add("mlp", "Error through the layers of a small MLP against the float64 network", add_mlp);
  add("train", "A linear regression trained by gradient descent in each format's own arithmetic", add_train);
  add("roundtrip", "An array through a dtype and scaling recipe and back: its error and range", add_roundtrip);
  add("scenario", "Teaching scenarios with known answers: list, run (checks), export (slides)", add_scenario);
  add("tensors", "List the tensors of a .safetensors (or .npy) file", add_tensors);
  add("scan", "Every tensor of a checkpoint under every candidate format, and a mixed-precision plan", add_scan);
  add("accumulation-probe", "How the backend's GEMM adds: rounding, ties, extra bits, partial-sum width, promotion",
      add_accumulation_probe);

  if (std::string unknown = argc > 1 && argv[1][0] != '-' ? unknown_command_message(app, argv[1]) : "";
      !unknown.empty()) {
    std::fprintf(stderr, "error: %s\n", unknown.c_str());
    return kExitBadInput;
  }
  for (const Status& st : {not_a_whole_number(argc, argv), empty_option_value(argc, argv)})
    if (!st) {
      std::fprintf(stderr, "error: %s\n", st.error().c_str());
      return kExitBadInput;
    }
  std::vector<std::string> args = protect_negative_values(argc, argv);
  std::vector<const char*> cargs{argv[0]};
  for (auto& a : args) cargs.push_back(a.c_str());
  // A closed pipe under standard output is a write error said (EPIPE, exit 1), not a silent
  // death by SIGPIPE in the middle of a command, which leaves a result folder's temporary behind.
  std::signal(SIGPIPE, SIG_IGN);
  // So is a file past the size limit (ulimit -f): EFBIG from write(2), which the checked writes
  // report and clean up after, not death by SIGXFSZ with half a file and a temporary left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::CallForHelp& e) {
    return finish_stdout(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return finish_stdout(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // One line, as every other error says it (CLI11's own takes two, without "error:"), with the
    // help of the command it was reading.
    std::string command = "precision-lab";
    for (const CLI::App* at = &app; at;) {
      const std::vector<const CLI::App*> parsed = at->get_subcommands([](const CLI::App* s) { return s->parsed(); });
      at = parsed.empty() ? nullptr : parsed.front();
      if (at) command += " " + at->get_name();
    }
    // (CLI11 quotes what was typed: "--rounding: r<ESC> not in {...}".)
    std::string what = plain_parse_error(printable_whole(e.what()));
    // CLI11 lists the unexpected words last first ("--lengths 16,256" would read "16,256 --lengths").
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      const std::vector<std::string> extra = app.remaining(true);
      if (!extra.empty()) {
        what = extra.size() > 1 ? "the following arguments were not expected:"
                                : "the following argument was not expected:";
        for (const std::string& word : extra) what.append(" ").append(printable_whole(restore_value(word)));
      }
    }
    // ("The following argument was not expected", "A subcommand is required": a sentence's
    // capital, in the middle of ours; an acronym keeps its.)
    if (what.size() > 1 && std::isupper(static_cast<unsigned char>(what[0])) &&
        (std::islower(static_cast<unsigned char>(what[1])) || what[1] == ' '))
      what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
    std::fprintf(stderr, "error: %s (see %s --help)\n", what.c_str(), command.c_str());
    return kExitBadInput;
  }
  for (auto& [sub, runner] : runners)
    if (sub->parsed()) {
      for (const CLI::Option* opt : app.get_options())
        if (opt->count() > 0 && opt->get_group() == kWindowGroup) {
          std::fprintf(stderr, "error: %s is a window option: it takes no command (%s)\n", opt->get_name().c_str(),
                       sub->get_name().c_str());
          return kExitBadInput;
        }
      // --size, --dpi and --force without the folder the figures go to would change nothing
      // (--force would be taken silently, as if a folder were being replaced).
      if (const auto f = figure_folders.find(sub); f != figure_folders.end())
        for (const std::string option : {"--size", "--dpi", "--force"})
          if (sub->get_option(option)->count() > 0 && sub->get_option(std::string(f->second))->count() == 0 &&
              (option != "--force" || force_is_for_the_folder.count(sub))) {
            const std::string folder(f->second);
            if (option == "--force")
              std::fprintf(stderr, "error: --force replaces the folder %s writes: give %s too\n",
                           sub->get_name().c_str(), folder.c_str());
            else
              std::fprintf(stderr, "error: %s sets the figures %s writes: give %s, the folder they go to\n",
                           option.c_str(), sub->get_name().c_str(), folder.c_str());
            return kExitBadInput;
          }
      catch_interrupts();
      int status = kExitFailed;
      try {
        status = runner();
      } catch (...) {  // (std::bad_alloc from a file or run past the checks): said, not std::terminate
        std::fprintf(stderr, "error: %s\n", exception_text(std::current_exception()).c_str());
      }
      if (const int interrupted = interrupted_exit("nothing half-written was left behind")) return interrupted;
      return finish_stdout(status);
    }
  if (auto st = finish_window_options(app, window_options, window_flags); !st) {
    std::fprintf(stderr, "error: %s\n", st.error().c_str());
    return kExitBadInput;
  }
  // Ctrl-C, SIGTERM or SIGHUP closes the window on its own way out: its work is cancelled and
  // joined, and whatever it was writing is finished whole or removed, as when the window is closed.
  catch_interrupts();
  const int status = window(window_options);
  if (const int interrupted = interrupted_exit("the window closed; nothing half-written was left behind"))
    return interrupted;
  // (A screenshot or --check-layout prints its lines there: a failed write of them is said, exit 1.)
  return finish_stdout(status);
}

int output_problem(const std::string& dir, bool force, const std::vector<std::string>& inputs) {
  Status st = exporting::ResultFolder::refusal(dir, force, inputs);
  // The PDFs' dates (pdf_dates.h): a malformed SOURCE_DATE_EPOCH is refused before the work,
  // not after it, when the first PDF is written.
  if (st)
    if (const auto date = figure::source_date(std::getenv("SOURCE_DATE_EPOCH")); !date) st = Error{date.error()};
  if (!st) {
    std::fprintf(stderr, "error: %s\n", st.error().c_str());
    return kExitBadInput;
  }
  // (The trial's folders go when it does: nothing is left.)
  if (auto trial = exporting::ResultFolder::begin(dir, force); !trial) {
    std::fprintf(stderr, "error: %s\n", trial.error().c_str());
    return kExitFailed;
  }
  return kExitOk;
}

std::string in_option_terms(const std::string& message, std::initializer_list<KeyOption> renamed) {
  // The reader's refusals start "'KEY': " (json_reader.h's Reader::fail).
  if (message.size() < 4 || message[0] != '\'') return message;
  const size_t close = message.find("': ", 1);
  if (close == std::string::npos) return message;
  const std::string key = message.substr(1, close - 1);
  std::string option;
  for (const KeyOption& r : renamed)
    if (r.key == key) option = r.option;
  if (option.empty()) {
    option = "--" + key;
    std::replace(option.begin(), option.end(), '_', '-');
  }
  return option + message.substr(close + 1);
}

int write_output(const std::string& dir, bool force, const std::function<Status(const std::string&)>& fill) {
  auto written = exporting::write_result_folder(dir, force, fill);
  if (written) return kExitOk;
  if (interrupt_signal() != 0) return 128 + interrupt_signal();
  std::fprintf(stderr, "error: %s\n", written.error().c_str());
  return kExitFailed;
}

}  // namespace pl::cli
