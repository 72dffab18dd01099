#include "worker/client.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

namespace mpgemm {

namespace {

using std::chrono::milliseconds;

milliseconds ms_ceil(double ms) {
  return std::chrono::ceil<milliseconds>(std::chrono::duration<double, std::milli>(ms));
}

Measurement failed(Status status, std::string message, std::optional<ErrorStats> error = std::nullopt) {
  Measurement m;
  m.status = status;
  m.message = std::move(message);
  m.error = error;
  return m;
}

}  // namespace

std::string default_worker_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw WorkerError(fmt::format("cannot locate mpgemm-worker: reading /proc/self/exe: {}", ec.message()));
  return (self.parent_path() / "mpgemm-worker").string();
}

WorkerClient::WorkerClient(WorkerOptions options) : options_(std::move(options)) {}

WorkerClient::~WorkerClient() {
  shutdown();
}

bool WorkerClient::running() const {
  return child_ && !child_->reaped();
}

int WorkerClient::pid() const {
  return running() ? child_->pid() : -1;
}

milliseconds WorkerClient::verify_limit() const {
  const double cublas_ms = reference_ ? reference_->timing.median_ms : 0.0;
  // The worker may first finish a slice of keeping warm, and settle after idle once it has verified
  // (PrepareShapeRequest::hold).
  const int settle_ms = shape_ ? std::max(0, shape_->hold.idle_settle_ms) : 0;
  return options_.verify_base + milliseconds(settle_ms) +
         ms_ceil(options_.verify_cublas_factor * std::max(cublas_ms, 0.0));
}

milliseconds WorkerClient::timing_limit(const MeasureRequest& request, double first_launch_ms) const {
  if (!std::isfinite(first_launch_ms) || first_launch_ms < 0) return options_.timing_base + verify_limit();
  double launches = static_cast<double>(request.warmup) + static_cast<double>(request.runs) * request.iters;
  double extra_ms = 0;
  if (request.screen && request.screen_against_ms) launches += request.screen->launches;
  if (const auto& n = request.noise_stop) {
    // Batches until the target or the cap, plus the batch that crosses the cap.
    launches += static_cast<double>(std::max(n->min_samples, 1) + 1) * request.iters;
    extra_ms += 1000 * n->max_time_s;
  }
  // Cold L2: a flush of twice the L2 before every timed launch, not in first_launch_ms; 1 ms each is ample.
  if (request.l2 == L2Mode::cold) launches *= 1 + 1 / std::max(first_launch_ms, 1e-3);
  return options_.timing_base + ms_ceil(options_.timing_factor * (launches * first_launch_ms + extra_ms));
}

void WorkerClient::ensure_started() {
  if (child_ && child_->wait_exit(milliseconds(0))) child_.reset();  // died while idle
  if (!child_) start_worker();
}

void WorkerClient::start_worker() {
  const std::string path = options_.executable.empty() ? default_worker_path() : options_.executable;
  reader_ = FrameReader();
  child_ = std::make_unique<ChildProcess>(path, options_.args);
  ++starts_;
  const Message hello = call(HelloRequest{kProtocolVersion, options_.device_ordinal}, options_.hello_timeout);
  const auto* reply = std::get_if<HelloReply>(&hello);
  if (reply == nullptr || reply->protocol != kProtocolVersion) {
    end_worker(milliseconds(0));
    throw WorkerError(fmt::format("worker {} answered hello with {} (protocol {}, expected {})", path,
                                  message_type(hello), reply ? reply->protocol : -1, kProtocolVersion));
  }
  device_ = reply->device;
  if (shape_) {
    // A replacement worker: give it the current problem before anything is measured on it.
    const Message prepared = call(*shape_, prepare_limit(*shape_));
    const auto* ref = std::get_if<PrepareShapeReply>(&prepared);
    if (ref == nullptr) {
      end_worker(milliseconds(0));
      throw WorkerError(fmt::format("worker answered prepare_shape with {}", message_type(prepared)));
    }
    reference_ = ref->reference;
  }
}

IoStatus WorkerClient::send(const Message& request, Clock::time_point deadline) {
  return write_frame(child_->request_fd(), request, deadline);
}

WorkerClient::Received WorkerClient::receive(Clock::time_point deadline) {
  Received r{IoStatus::ok, std::nullopt};
  try {
    r.status = read_message(child_->reply_fd(), reader_, deadline, r.message);
  } catch (const ProtocolError& e) {
    const std::string how = end_worker(milliseconds(0));
    throw WorkerError(fmt::format("the worker broke the protocol and was stopped ({}): {}", how, e.what()));
  }
  return r;
}

std::string WorkerClient::end_worker(milliseconds grace) noexcept {
  if (!child_) return "no worker";
  child_->close_requests();
  if (!child_->wait_exit(grace)) child_->kill_and_reap(options_.reap_timeout);
  std::string how = "ended";
  try {
    how = child_->describe_exit();
  } catch (...) {
  }
  child_.reset();
  return how;
}

void WorkerClient::throw_error_reply(const ErrorReply& error, std::string_view request) {
  if (error.fatal) end_worker(options_.shutdown_grace);
  switch (error.kind) {
    case ErrorKind::no_device:
      throw NoDeviceError(error.message);
    case ErrorKind::cuda:
      throw CudaError(fmt::format("{} in mpgemm-worker", request), error.code, error.message);
    default:
      throw WorkerError(fmt::format("worker refused {} ({}): {}", request, to_string(error.kind), error.message));
  }
}

Message WorkerClient::call(const Message& request, milliseconds limit) {
  const std::string_view what = message_type(request);
  const auto deadline = Clock::now() + limit;
  IoStatus status = send(request, deadline);
  Received reply{status, std::nullopt};
  if (status == IoStatus::ok) reply = receive(deadline);
  if (reply.status == IoStatus::timed_out) {
    const std::string how = end_worker(milliseconds(0));
    throw WorkerError(
        fmt::format("the worker did not answer {} within {} ms and was killed ({})", what, limit.count(), how));
  }
  if (reply.status == IoStatus::closed) {
    const std::string how = end_worker(options_.shutdown_grace);
    throw WorkerError(fmt::format("the worker {} during {}", how, what));
  }
  if (const auto* error = std::get_if<ErrorReply>(&*reply.message)) throw_error_reply(*error, what);
  return std::move(*reply.message);
}

DeviceInfo WorkerClient::hello() {
  ensure_started();
  return *device_;
}

// Preparing a shape may take prepare_timeout, plus the settling it asks for (the longer of its own and that after
// idle, and the settling after cuBLASLt's search).
milliseconds WorkerClient::prepare_limit(const PrepareShapeRequest& request) const {
  return options_.prepare_timeout + milliseconds(after_fill_settle_ms(request) + after_search_settle_ms(request));
}

PrepareShapeReply WorkerClient::prepare_shape(const PrepareShapeRequest& request) {
  shape_.reset();  // a restart in between must not prepare the previous shape first
  reference_.reset();
  ensure_started();
  const Message reply = call(request, prepare_limit(request));
  const auto* prepared = std::get_if<PrepareShapeReply>(&reply);
  if (prepared == nullptr) {
    end_worker(milliseconds(0));
    throw WorkerError(fmt::format("worker answered prepare_shape with {}", message_type(reply)));
  }
  shape_ = request;
  shape_->cublaslt = false;
  reference_ = prepared->reference;
  return *prepared;
}

Measurement WorkerClient::measure(const MeasureRequest& request) {
  if (!shape_) throw Error("WorkerClient::measure called before prepare_shape");
  ensure_started();

  // Phase 1: the request goes out and the verification comes back.
  const milliseconds limit1 = verify_limit();
  const auto deadline1 = Clock::now() + limit1;
  const IoStatus sent = send(request, deadline1);
  Received verified{sent, std::nullopt};
  if (sent == IoStatus::ok) verified = receive(deadline1);
  if (verified.status == IoStatus::timed_out) {
    const std::string how = end_worker(milliseconds(0));
    return failed(Status::timeout,
                  fmt::format("verification did not finish within {} ms ({} ms + {} ms of settling after idle + {} "
                              "x cuBLAS median {:.4g} ms); the worker was killed ({})",
                              limit1.count(), options_.verify_base.count(), shape_->hold.idle_settle_ms,
                              options_.verify_cublas_factor, reference_ ? reference_->timing.median_ms : 0.0, how));
  }
  if (verified.status == IoStatus::closed) {
    const std::string how = end_worker(options_.shutdown_grace);
    return failed(Status::runtime_fault, fmt::format("the worker {} during verification", how));
  }
  if (const auto* error = std::get_if<ErrorReply>(&*verified.message)) throw_error_reply(*error, "measure");
  const auto* v = std::get_if<VerifiedReply>(&*verified.message);
  if (v == nullptr) {
    end_worker(milliseconds(0));
    throw WorkerError(fmt::format("worker answered measure with {}", message_type(*verified.message)));
  }
  if (v->status == Status::runtime_fault) {
    // The worker exits after a sticky fault; nothing more is taken from it.
    end_worker(options_.shutdown_grace);
    return failed(Status::runtime_fault, v->message, v->error);
  }

  // Phase 2: the timing protocol (or, when verification failed, the final result straight away).
  const milliseconds limit2 =
      v->status == Status::ok ? timing_limit(request, v->first_launch_ms) : options_.timing_base;
  Received result = receive(Clock::now() + limit2);
  if (result.status == IoStatus::timed_out) {
    const std::string how = end_worker(milliseconds(0));
    return failed(Status::timeout,
                  fmt::format("timing did not finish within {} ms ({} ms + {} x {} launches x first launch {:.4g} "
                              "ms); the worker was killed ({})",
                              limit2.count(), options_.timing_base.count(), options_.timing_factor,
                              request.warmup + request.runs * request.iters, v->first_launch_ms, how),
                  v->error);
  }
  if (result.status == IoStatus::closed) {
    const std::string how = end_worker(options_.shutdown_grace);
    return failed(Status::runtime_fault, fmt::format("the worker {} while timing", how), v->error);
  }
  if (const auto* error = std::get_if<ErrorReply>(&*result.message)) throw_error_reply(*error, "measure");
  auto* r = std::get_if<ResultReply>(&*result.message);
  if (r == nullptr) {
    end_worker(milliseconds(0));
    throw WorkerError(fmt::format("worker sent {} where a result was due", message_type(*result.message)));
  }
  if (r->measurement.status == Status::runtime_fault) end_worker(options_.shutdown_grace);
  return std::move(r->measurement);
}

milliseconds WorkerClient::interleaved_limit(const TimeInterleavedRequest& request) const {
  const double cublas_ms = reference_ ? std::max(reference_->timing.median_ms, 0.0) : 0.0;
  // One launch of every entry; cuBLASLt, when asked for, is counted at cuBLAS's median.
  double per_launch_ms = request.cublaslt ? 2 * cublas_ms : cublas_ms;
  for (const auto& k : request.kernels)
    per_launch_ms += std::isfinite(k.expected_ms) && k.expected_ms > 0 ? k.expected_ms : cublas_ms;
  const double launches = static_cast<double>(request.warmup) + static_cast<double>(request.rounds) * request.iters;
  // The untimed rounds end after the first round past settle_ms: at most settle_ms plus one round.
  const double settle_ms = request.settle_ms > 0 ? request.settle_ms + request.iters * per_launch_ms : 0.0;
  return static_cast<milliseconds::rep>(request.kernels.size()) * verify_limit() + options_.timing_base +
         ms_ceil(options_.timing_factor * (launches * per_launch_ms + settle_ms));
}

InterleavedReply WorkerClient::time_interleaved(const TimeInterleavedRequest& request) {
  if (!shape_) throw Error("WorkerClient::time_interleaved called before prepare_shape");
  ensure_started();
  Message reply = call(request, interleaved_limit(request));
  auto* r = std::get_if<InterleavedReply>(&reply);
  if (r == nullptr) {
    end_worker(milliseconds(0));
    throw WorkerError(fmt::format("worker answered time_interleaved with {}", message_type(reply)));
  }
  if (r->context_lost) end_worker(options_.shutdown_grace);
  return std::move(*r);
}

std::optional<WorkerPhases> WorkerClient::account() noexcept {
  if (!running()) return std::nullopt;
  try {
    Message reply = call(AccountRequest{}, options_.account_timeout);
    if (auto* r = std::get_if<AccountReply>(&reply)) return r->phases;
    end_worker(milliseconds(0));  // any other answer breaks the protocol
  } catch (...) {
    // call() has ended a worker that did not answer; an account is never worth failing a run for
  }
  return std::nullopt;
}

void WorkerClient::shutdown() noexcept {
  if (!child_) return;
  try {
    if (!child_->reaped())
      (void)send(ShutdownRequest{}, Clock::now() + std::min(options_.shutdown_grace, milliseconds(500)));
  } catch (...) {
    // the worker is ended below either way
  }
  end_worker(options_.shutdown_grace);
}

}  // namespace mpgemm
