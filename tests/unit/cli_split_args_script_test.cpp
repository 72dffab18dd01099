// tools/split_args.sh, which the scripts use for their *_ARGS variables: words split as a shell splits them, quotes
// kept together, nothing evaluated, and an unmatched quote refused with the variable's name.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "support/run_command.hpp"

namespace mpgemm::testing {
namespace {

// Runs `split_args words V` with V set to `value` (passed through the environment, as the scripts get it) and
// prints each word in <>, then the count.
CommandResult split(const std::string& value) {
  const auto dir = fresh_dir("split_args");
  const auto value_file = dir / "value";
  std::ofstream(value_file) << value;  // flushed and closed at the end of the statement
  return run_command(fmt::format(
      "LC_ALL=C V=\"$(cat {})\" bash -c 'set -euo pipefail; source {}; words=(); split_args words V; "
      "for w in ${{words[@]+\"${{words[@]}}\"}}; do printf \"<%s>\" \"$w\"; done; echo \" ${{#words[@]}}\"'",
      value_file.string(), source("tools/split_args.sh")));
}

TEST(CliSplitArgsScript, QuotesKeepWordsTogetherAndNothingIsEvaluated) {
  const auto r = split("--rounds 20  --db 'my results/x.db' --comment=\"two words\" '*' $HOME $(echo hi) `id`");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "<--rounds><20><--db><my results/x.db><--comment=two words><*><$HOME><$(echo><hi)><`id`> 10\n");
}

TEST(CliSplitArgsScript, EmptyWordsStayAndABackslashNeedsQuotes) {
  const auto r = split("'' --only 'bm\\d+' bm\\d --opt ''");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "<><--only><bm\\d+><bmd><--opt><> 6\n") << "xargs drops a backslash outside quotes";
}

TEST(CliSplitArgsScript, AVariableSplitsIntoItself) {
  const auto r = run_command(fmt::format(
      "bash -c 'source {}; V=\"a b\"; split_args V V; echo \"${{#V[@]}} ${{V[1]}}\"'", source("tools/split_args.sh")));
  EXPECT_EQ(r.output, "2 b\n") << r.output;
}

TEST(CliSplitArgsScript, NothingGivesNoWords) {
  const auto r = split("   ");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, " 0\n");
}

TEST(CliSplitArgsScript, AnUnmatchedQuoteIsRefusedWithTheVariablesName) {
  const auto r = split("--comment='oops");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("V: xargs: unmatched single quote"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('<'), std::string::npos) << "nothing after the refusal runs: " << r.output;
}

}  // namespace
}  // namespace mpgemm::testing
