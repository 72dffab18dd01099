#include "common/types.hpp"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace mpgemm {

std::string Shape::str() const {
  return fmt::format("{}x{}x{}", m, n, k);
}

std::string Arch::str() const {
  return fmt::format("sm_{}{}{}", major, minor, arch_specific ? "a" : "");
}

std::optional<Arch> Arch::parse(std::string_view text) {
  if (text.starts_with("sm_")) text.remove_prefix(3);
  Arch a;
  if (!text.empty() && text.back() == 'a') {
    a.arch_specific = true;
    text.remove_suffix(1);
  }
  if (text.size() < 2 || text.size() > 3) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  a.minor = text.back() - '0';
  a.major = std::stoi(std::string(text.substr(0, text.size() - 1)));
  if (a.major < 5) return std::nullopt;
  return a;
}

namespace {
constexpr std::array<std::pair<Status, std::string_view>, 10> kStatusNames{{
    {Status::ok, "ok"},
    {Status::compile_failed, "compile_failed"},
    {Status::resources_exceeded, "resources_exceeded"},
    {Status::launch_failed, "launch_failed"},
    {Status::runtime_fault, "runtime_fault"},
    {Status::timeout, "timeout"},
    {Status::incorrect, "incorrect"},
    {Status::constraint_rejected, "constraint_rejected"},
    {Status::pruned, "pruned"},
    {Status::screened_out, "screened_out"},
}};
}  // namespace

std::string_view to_string(Status s) {
  for (const auto& [st, name] : kStatusNames)
    if (st == s) return name;
  return "unknown";
}

std::optional<Status> status_from_string(std::string_view text) {
  for (const auto& [st, name] : kStatusNames)
    if (name == text) return st;
  return std::nullopt;
}

std::string_view to_string(L2Mode mode) {
  return mode == L2Mode::cold ? "cold" : "warm";
}

std::optional<L2Mode> l2_mode_from_string(std::string_view text) {
  if (text == "warm") return L2Mode::warm;
  if (text == "cold") return L2Mode::cold;
  return std::nullopt;
}

std::string_view to_string(BatchEnqueue how) {
  return how == BatchEnqueue::graph ? "graph" : "stream";
}

std::optional<BatchEnqueue> batch_enqueue_from_string(std::string_view text) {
  if (text == "stream") return BatchEnqueue::stream;
  if (text == "graph") return BatchEnqueue::graph;
  return std::nullopt;
}

}  // namespace mpgemm
