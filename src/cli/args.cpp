#include "cli/args.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::cli {

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string ParsedArgs::get_or(const std::string& name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

std::optional<std::int64_t> ParsedArgs::get_int(const std::string& name) const {
  auto text = get(name);
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || ptr != text->data() + text->size())
    throw UsageError(fmt::format("{} expects an integer, got '{}'", name, *text));
  return v;
}

std::optional<std::int64_t> ParsedArgs::get_positive_int(const std::string& name) const {
  auto v = get_int(name);
  if (v && *v <= 0) throw UsageError(fmt::format("{} must be a positive integer, got {}", name, *v));
  return v;
}

std::optional<double> ParsedArgs::get_double(const std::string& name) const {
  auto text = get(name);
  if (!text) return std::nullopt;
  try {
    std::size_t used = 0;
    double v = std::stod(*text, &used);
    // nan and inf read as numbers, and every comparison with nan is false: refused here, so no range check
    // downstream can let one through.
    if (used == text->size() && !std::isfinite(v))
      throw UsageError(fmt::format("{} expects a finite number, got '{}'", name, *text));
    if (used == text->size()) return v;
  } catch (const std::invalid_argument&) {
  } catch (const std::out_of_range&) {
  }
  throw UsageError(fmt::format("{} expects a number, got '{}'", name, *text));
}

std::vector<std::string> ParsedArgs::get_list(const std::string& name) const {
  std::vector<std::string> out;
  std::string item;
  for (char c : get_or(name, "") + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

ArgParser::ArgParser(std::string program, std::string summary, std::string description)
    : program_(std::move(program)), summary_(std::move(summary)), description_(std::move(description)) {}

ArgParser& ArgParser::positional(std::string name, std::string help, bool required) {
  positionals_.push_back({std::move(name), std::move(help), required});
  return *this;
}

ArgParser& ArgParser::option(std::string name, std::string value_name, std::string help, std::string default_text) {
  options_.push_back({std::move(name), std::move(value_name), std::move(help), std::move(default_text)});
  return *this;
}

ArgParser& ArgParser::flag(std::string name, std::string help) {
  return option(std::move(name), "", std::move(help));
}

ArgParser& ArgParser::example(std::string command, std::string explanation) {
  examples_.emplace_back(std::move(command), std::move(explanation));
  return *this;
}

const OptionSpec* ArgParser::find(const std::string& name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

ParsedArgs ArgParser::parse(int argc, const char* const* argv) const {
  ParsedArgs out;
  bool only_positionals = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!only_positionals && (arg == "-h" || arg == "--help")) {
      out.help_ = true;
      continue;
    }
    if (!only_positionals && arg == "--version") {
      out.version_ = true;
      continue;
    }
    if (!only_positionals && arg == "--") {
      only_positionals = true;
      continue;
    }
    if (!only_positionals && arg.size() > 1 && arg[0] == '-') {
      std::string name = arg;
      std::optional<std::string> inline_value;
      if (auto eq = arg.find('='); eq != std::string::npos) {
        name = arg.substr(0, eq);
        inline_value = arg.substr(eq + 1);
      }
      const OptionSpec* spec = find(name);
      if (!spec) throw UsageError(fmt::format("unknown option {}", name));
      if (spec->value_name.empty()) {
        if (inline_value) throw UsageError(fmt::format("{} takes no value", name));
        out.values_[name] = "1";
        continue;
      }
      if (!inline_value && i + 1 >= argc)
        throw UsageError(fmt::format("{} needs a value ({})", name, spec->value_name));
      std::string value = inline_value ? *inline_value : argv[++i];
      // An empty value is never meant: an empty --db made SQLite open a private temporary database, so a run's
      // results went nowhere (and "$UNSET" in a script reads as '').
      if (value.empty()) throw UsageError(fmt::format("{} is empty: it needs a {}", name, spec->value_name));
      out.values_[name] = std::move(value);
      continue;
    }
    if (arg.empty() && !positionals_.empty()) {
      const std::size_t at = std::min(out.positionals_.size(), positionals_.size() - 1);
      throw UsageError(fmt::format("the argument {} is empty", positionals_[at].name));
    }
    out.positionals_.push_back(arg);
  }
  if (out.help_ || out.version_) return out;
  std::size_t required = 0;
  for (const auto& p : positionals_) required += p.required ? 1 : 0;
  if (out.positionals_.size() < required)
    throw UsageError(fmt::format("missing {}", positionals_[out.positionals_.size()].name));
  const bool repeats = !positionals_.empty() && positionals_.back().name.ends_with("...");
  if (out.positionals_.size() > positionals_.size() && !repeats)
    throw UsageError(fmt::format("unexpected argument '{}'", out.positionals_[positionals_.size()]));
  return out;
}

namespace {
// Wraps text at `width` columns, each line after the first indented by `indent` spaces.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::size_t start = 0;
  auto flush = [&] {
    if (!out.empty()) out += "\n" + std::string(indent, ' ');
    out += line;
    line.clear();
  };
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) flush();
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) flush();
  return out;
}
}  // namespace

std::string ArgParser::help_text() const {
  std::string usage = program_;
  if (!options_.empty()) usage += " [options]";
  for (const auto& p : positionals_) usage += p.required ? " " + p.name : " [" + p.name + "]";
  std::string out = fmt::format("{} - {}\n\nUsage: {}\n\n{}\n", program_, summary_, usage, wrap(description_, 0, 100));
  if (!positionals_.empty()) {
    out += "\nArguments:\n";
    for (const auto& p : positionals_) out += fmt::format("  {:<24}{}\n", p.name, wrap(p.help, 26, 110));
  }
  out += "\nOptions:\n";
  for (const auto& o : options_) {
    std::string left = o.value_name.empty() ? o.name : o.name + " " + o.value_name;
    std::string help = o.help + (o.default_text.empty() ? "" : " (default: " + o.default_text + ")");
    if (left.size() >= 24) {
      out += fmt::format("  {}\n  {:<24}{}\n", left, "", wrap(help, 26, 110));
    } else {
      out += fmt::format("  {:<24}{}\n", left, wrap(help, 26, 110));
    }
  }
  out += fmt::format("  {:<24}{}\n", "-h, --help", "Show this help and exit.");
  out += fmt::format("  {:<24}{}\n", "--version", "Print the version and the commit it was built from, and exit.");
  if (!examples_.empty()) {
    out += "\nExamples:\n";
    for (const auto& [cmd, what] : examples_) out += fmt::format("  {}\n      {}\n", cmd, wrap(what, 6, 110));
  }
  return out;
}

}  // namespace mpgemm::cli
