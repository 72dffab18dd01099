#pragma once
// Command-line arguments as a table of (names, value, help) that drives both parsing and --help, so the two can
// never disagree. Parsing errors are UsageError; the executables turn them into exit code 2.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpgemm::cli {

struct OptionSpec {
  std::string name;          // "--db"
  std::string value_name;    // "PATH"; empty for a flag that takes no value
  std::string help;          // one or two sentences
  std::string default_text;  // shown as "(default: …)"; empty for none
};

struct PositionalSpec {
  std::string name;  // "SPACE.json"
  std::string help;
  bool required = true;
};

class ParsedArgs {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // The value of an option, or nullopt when it was not given.
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  // Integer / floating values; UsageError naming the option when the text is not a number (or not > 0 for
  // positive variants). get_double refuses nan and infinities too: no option takes one.
  std::optional<std::int64_t> get_int(const std::string& name) const;
  std::optional<std::int64_t> get_positive_int(const std::string& name) const;
  std::optional<double> get_double(const std::string& name) const;
  // A comma-separated value as its items, empty items dropped ("a,,b," -> a, b); empty when not given.
  std::vector<std::string> get_list(const std::string& name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  bool help_requested() const { return help_; }
  bool version_requested() const { return version_; }

 private:
  friend class ArgParser;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
  bool help_ = false;
  bool version_ = false;
};

class ArgParser {
 public:
  ArgParser(std::string program, std::string summary, std::string description);
  // The last positional may repeat when its name ends in "..." (e.g. "IN...").
  ArgParser& positional(std::string name, std::string help, bool required = true);
  ArgParser& option(std::string name, std::string value_name, std::string help, std::string default_text = {});
  ArgParser& flag(std::string name, std::string help);
  ArgParser& example(std::string command, std::string explanation);

  // Accepts "--name value" and "--name=value"; "-h"/"--help" set help_requested(), "--version"
  // version_requested(). Throws UsageError, also for an
  // empty value ("--db ''") or an empty positional: no option or argument means anything by one.
  ParsedArgs parse(int argc, const char* const* argv) const;
  std::string help_text() const;
  const std::string& program() const { return program_; }

 private:
  const OptionSpec* find(const std::string& name) const;
  std::string program_, summary_, description_;
  std::vector<PositionalSpec> positionals_;
  std::vector<OptionSpec> options_;
  std::vector<std::pair<std::string, std::string>> examples_;
};

}  // namespace mpgemm::cli
