#pragma once
// Shared by the mpgemm-report tests: running it, reading what it drew (numbers.json), checking its PNGs, and
// making sure the database it read was left exactly as it was.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace mpgemm::testing {

inline CommandResult run_report(const std::filesystem::path& db, const std::filesystem::path& out,
                                const std::string& args = "") {
  return run_command(fmt::format("{} '{}' -o '{}' {}", bin("mpgemm-report"), db.string(), out.string(), args));
}

inline nlohmann::json drawn_numbers(const std::filesystem::path& out) {
  std::ifstream in(out / "numbers.json");
  return nlohmann::json::parse(in);
}

inline std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every file in a folder with its content: a database folder before and after a report must be equal (no
// -wal, no -shm, no byte changed).
inline std::map<std::string, std::string> folder_contents(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().filename().string()] = bytes_of(e.path());
  return out;
}

inline std::uint32_t big_endian(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

// "" when `path` is a whole PNG (signature, IHDR first, IEND last) of a size a reader can look at; else why
// not.
inline std::string png_problem(const std::filesystem::path& path) {
  const std::string b = bytes_of(path);
  if (b.size() < 10'000) return fmt::format("{} bytes: too small for a drawn picture", b.size());
  if (b.substr(0, 8) != std::string("\x89PNG\r\n\x1a\n", 8)) return "no PNG signature";
  if (b.substr(12, 4) != "IHDR") return "the first chunk is not IHDR";
  if (b.substr(b.size() - 8, 4) != "IEND") return "the last chunk is not IEND (truncated?)";
  const std::uint32_t width = big_endian(b, 16), height = big_endian(b, 20);
  if (width < 500 || width > 4000 || height < 350 || height > 4000)
    return fmt::format("{}x{} pixels: not a sensible size", width, height);
  return "";
}

// Checks every picture numbers.json lists is a sensible PNG, and that the folder holds no other PNG.
inline void expect_pictures(const std::filesystem::path& out, const nlohmann::json& numbers) {
  std::set<std::string> listed, found;
  for (const auto& [key, section] : numbers["sections"].items())
    for (const auto& image : section["images"]) {
      listed.insert(image.get<std::string>());
      EXPECT_EQ(png_problem(out / image.get<std::string>()), "") << key << ": " << image;
    }
  for (const auto& e : std::filesystem::directory_iterator(out))
    if (e.path().extension() == ".png") found.insert(e.path().filename().string());
  EXPECT_EQ(found, listed);
  const std::string md = bytes_of(out / "report.md");
  for (const auto& image : listed) EXPECT_NE(md.find("](" + image + ")"), std::string::npos) << image;
}

// The record of `section` in numbers.json for a device and shape ("shape": [M, N, K]).
inline const nlohmann::json* record_for(const nlohmann::json& numbers, const std::string& section,
                                        const std::string& device, const std::vector<std::int64_t>& shape) {
  for (const auto& r : numbers["sections"][section]["numbers"])
    if (r["device"] == device && r["shape"] == nlohmann::json(shape)) return &r;
  return nullptr;
}

inline double num(const std::string& sql_value) {
  return std::stod(sql_value);
}

}  // namespace mpgemm::testing
