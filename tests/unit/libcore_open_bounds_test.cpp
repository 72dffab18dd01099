// Library::open and mpgemm_open read an exported file within kMaxInputFileBytes: a file past the bound (a sparse
// one here, so the test writes nothing) and /dev/zero, which never ends, are each refused at open in one line that
// names the file and the bound, never bad_alloc or a wait for the end of /dev/zero.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "common/bounded_input.hpp"
#include "mpgemm/gemm.h"
#include "mpgemm/gemm.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

// The message of Library::open's refusal of `path`, or "opened".
std::string refusal(const std::string& path) {
  try {
    Library::open(path);
  } catch (const GemmError& e) {
    EXPECT_EQ(e.kind(), GemmError::Kind::open_failed);
    return e.what();
  }
  return "opened";
}

class LibOpenBounds : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_dir("libcore_open_bounds"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LibOpenBounds, AnExportedFilePastTheBoundIsRefusedInOneLine) {
  const fs::path big = dir_ / "winners.json";
  { std::ofstream(big) << "{"; }
  fs::resize_file(big, kMaxInputFileBytes + 1);  // sparse: 64 MiB of holes cost no disk
  const std::string what = refusal(big.string());
  EXPECT_EQ(what, "libmpgemm: " + big.string() + ": the exported file is larger than 64 MiB (is it the right file?)");

  // At the bound exactly it is read (and refused for what it holds, not for its size).
  fs::resize_file(big, kMaxInputFileBytes);
  const std::string at_bound = refusal(big.string());
  EXPECT_EQ(at_bound.find("larger than"), std::string::npos) << at_bound;
  EXPECT_TRUE(at_bound.starts_with("libmpgemm: " + big.string() + ": neither a results database")) << at_bound;
  EXPECT_EQ(at_bound.find('\n'), std::string::npos);
}

TEST_F(LibOpenBounds, DevZeroIsRefusedInOneLine) {
  EXPECT_EQ(refusal("/dev/zero"),
            "libmpgemm: /dev/zero: the exported file is larger than 64 MiB (is it the right file?)");

  mpgemm_library* lib = nullptr;
  EXPECT_EQ(mpgemm_open("/dev/zero", nullptr, &lib), MPGEMM_OPEN_FAILED);
  EXPECT_EQ(lib, nullptr);
  EXPECT_STREQ(mpgemm_last_error(),
               "libmpgemm: /dev/zero: the exported file is larger than 64 MiB (is it the right file?)");
}

// Issue 57, item 7: a FIFO's open waits for a writer, perhaps forever; it is refused before anything opens it. Should
// it block (a regression), the test opens the FIFO's other end after 10 s so the open returns, and fails.
TEST_F(LibOpenBounds, AFifoIsRefusedBeforeItsOpenWaits) {
  const fs::path fifo = dir_ / "winners.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto refused = std::async(std::launch::async, [&] { return refusal(fifo.string()); });
  if (refused.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
    ADD_FAILURE() << "Library::open waited on the FIFO";
  }
  const std::string what = refused.get();
  EXPECT_EQ(what, "libmpgemm: " + fifo.string() +
                      ": is a FIFO or a socket, not a results database or an mpgemm-export JSON file");

  mpgemm_library* lib = nullptr;
  EXPECT_EQ(mpgemm_open(fifo.c_str(), nullptr, &lib), MPGEMM_OPEN_FAILED);
  EXPECT_EQ(lib, nullptr);
}

}  // namespace
}  // namespace mpgemm
