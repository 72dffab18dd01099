#pragma once
// The only writer to the store during a tuning run: configs, compilations, the references of each shape and
// every measurement, each in its own short transaction as soon as it is known, so a killed run loses at most
// what was in flight. It also keeps the run's tallies. Used from the coordinating thread only.
#include <cstdint>
#include <map>
#include <optional>

#include "common/device.hpp"
#include "common/records.hpp"
#include "store/store.hpp"
#include "tune/backend.hpp"

namespace mpgemm {

// The references a shape's measurements are compared against, as recorded.
struct RecordedReferences {
  std::int64_t cublas_id = 0;
  double cublas_ms = 0;
  std::optional<std::int64_t> cublaslt_id;
  std::optional<double> cublaslt_ms;  // when cuBLASLt was timed
};

class Recorder {
 public:
  // `kind`: what every shape of the run computes, recorded with each reference and measurement.
  Recorder(Store& store, std::int64_t run_id, ProblemKind kind = {}) : store_(store), run_id_(run_id), kind_(kind) {}

  std::int64_t run_id() const { return run_id_; }
  std::int64_t compilation(std::int64_t config_id, const CompileResult& compiled) {
    return store_.record_compilation(config_id, run_id_, compiled);
  }
  // cuBLAS's reference is recorded each time; cuBLASLt's too, unless the shape was kept (ref.kept) and `earlier`
  // (what this run recorded when the shape was first prepared) holds it: its search is not recorded twice.
  RecordedReferences references(const DeviceDescription& device, const Shape& shape, const ShapeReference& ref,
                                const RecordedReferences* earlier = nullptr);
  // `record` without its ratios: they are filled in from `refs` when the measurement was timed.
  void measurement(MeasurementRecord record, const std::optional<RecordedReferences>& refs);

  std::size_t measured() const { return measured_; }
  const std::map<Status, std::size_t>& statuses() const { return statuses_; }

 private:
  Store& store_;
  std::int64_t run_id_;
  ProblemKind kind_;
  std::size_t measured_ = 0;
  std::map<Status, std::size_t> statuses_;
};

}  // namespace mpgemm
