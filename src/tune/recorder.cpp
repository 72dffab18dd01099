#include "tune/recorder.hpp"

namespace mpgemm {

RecordedReferences Recorder::references(const DeviceDescription& device, const Shape& shape, const ShapeReference& ref,
                                        const RecordedReferences* earlier) {
  RecordedReferences ids;
  ids.cublas_id = store_.record_cublas(
      run_id_, CublasRecord{device.name, device.arch.str(), shape, ref.timing, ref.sm_clock_mhz, device.gpu, kind_});
  ids.cublas_ms = ref.timing.median_ms;
  if (ref.cublaslt && ref.kept && earlier && earlier->cublaslt_id) {
    ids.cublaslt_id = earlier->cublaslt_id;
    ids.cublaslt_ms = earlier->cublaslt_ms;
  } else if (ref.cublaslt) {
    ids.cublaslt_id = store_.record_cublaslt(
        run_id_, CublasLtRecord{device.name, device.arch.str(), shape, *ref.cublaslt, device.gpu, kind_});
    if (ref.cublaslt->timing && ref.cublaslt->timing->median_ms > 0) ids.cublaslt_ms = ref.cublaslt->timing->median_ms;
  }
  return ids;
}

void Recorder::measurement(MeasurementRecord rec, const std::optional<RecordedReferences>& refs) {
  rec.run_id = run_id_;
  rec.kind = kind_;
  const Measurement& m = rec.measurement;
  if (refs) {
    rec.cublas_id = refs->cublas_id;
    rec.cublaslt_id = refs->cublaslt_id;
    if (m.status == Status::ok && m.timing && m.timing->median_ms > 0) {
      rec.ratio_to_cublas = refs->cublas_ms / m.timing->median_ms;
      if (refs->cublaslt_ms) rec.ratio_to_cublaslt = *refs->cublaslt_ms / m.timing->median_ms;
    }
  }
  store_.record_measurement(rec);
  ++measured_;
  ++statuses_[m.status];
}

}  // namespace mpgemm
