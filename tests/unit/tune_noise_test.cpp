#include <gtest/gtest.h>

#include <deque>

#include "tune/noise.hpp"

using namespace mpgemm;

namespace {
// Answers measure() from a script of outcomes and counts the calls.
class ScriptedBackend final : public MeasureBackend {
 public:
  explicit ScriptedBackend(std::deque<Measurement> script) : script_(std::move(script)) {}
  std::string mode() const override { return "gpu"; }
  const DeviceDescription& device() const override { return device_; }
  BackendCapabilities capabilities() const override { return BackendCapabilities{}; }
  ShapeReference prepare_shape(const Shape&) override { return {}; }
  std::optional<Measurement> measure(const Candidate&, const CompileResult&, const Shape&) override {
    ++calls;
    Measurement m = script_.front();
    script_.pop_front();
    return m;
  }
  int calls = 0;

 private:
  std::deque<Measurement> script_;
  DeviceDescription device_;
};

Measurement timed(double min, double median, double max) {
  Measurement m;
  m.timing = TimingStats{median, min, max, 3, 5, 20};
  return m;
}

std::optional<Measurement> run(ScriptedBackend& b) {
  return measure_steady(b, Candidate{}, CompileResult{}, Shape{}, 0.10);
}
}  // namespace

TEST(Noise, SteadyTimingIsMeasuredOnce) {
  ScriptedBackend b({timed(0.99, 1.0, 1.05)});
  auto m = run(b);
  EXPECT_EQ(b.calls, 1);
  EXPECT_EQ(m->message, "");
}

TEST(Noise, NoisyTimingIsRemeasuredAndTheSteadiestKept) {
  ScriptedBackend b({timed(0.9, 1.0, 1.5), timed(0.98, 1.0, 1.02), timed(0.5, 1.0, 2.0)});
  auto m = run(b);
  EXPECT_EQ(b.calls, 2);  // the second is steady: no third
  EXPECT_DOUBLE_EQ(m->timing->max_ms, 1.02);
  EXPECT_EQ(m->message, "");
}

TEST(Noise, StillNoisyAfterThreeIsFlagged) {
  ScriptedBackend b({timed(0.9, 1.0, 1.5), timed(0.8, 1.0, 1.3), timed(0.7, 1.0, 1.6)});
  auto m = run(b);
  EXPECT_EQ(b.calls, 3);
  EXPECT_DOUBLE_EQ(m->timing->spread(), 0.5);  // 1.3 - 0.8: the steadiest of the three
  EXPECT_NE(m->message.find("noisy timing: spread 50.0%"), std::string::npos) << m->message;
}

TEST(Noise, ARemeasurementThatFailsWins) {
  Measurement wrong;
  wrong.status = Status::incorrect;
  ScriptedBackend b({timed(0.9, 1.0, 1.5), wrong});
  auto m = run(b);
  EXPECT_EQ(b.calls, 2);
  EXPECT_EQ(m->status, Status::incorrect);
}

// A timing taken under a noise target was sampled until steady (or out of time): its spread never triggers the
// re-measure, which would fight the stopping rule.
TEST(Noise, ATimingUnderANoiseTargetIsNotRemeasured) {
  Measurement sampled = timed(0.5, 1.0, 2.0);
  sampled.timing->noise_target = 0.005;
  ScriptedBackend b({sampled});
  auto m = run(b);
  EXPECT_EQ(b.calls, 1);
  EXPECT_EQ(m->message, "");
}

// A screened-out outcome is final: not re-measured, whatever its spread.
TEST(Noise, AScreenedOutConfigIsNotRemeasured) {
  Measurement screened = timed(0.5, 3.0, 9.0);
  screened.status = Status::screened_out;
  ScriptedBackend b({screened});
  auto m = measure_steady(b, Candidate{}, CompileResult{}, Shape{}, 0.10, 1.0);
  EXPECT_EQ(b.calls, 1);
  EXPECT_EQ(m->status, Status::screened_out);
}
