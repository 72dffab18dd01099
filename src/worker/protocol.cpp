#include "worker/protocol.hpp"

#include <array>
#include <cstring>

#include <fmt/format.h>

namespace mpgemm {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<ErrorKind, std::string_view>, 6> kErrorKinds{{
    {ErrorKind::no_device, "no_device"},
    {ErrorKind::cuda, "cuda"},
    {ErrorKind::cublas, "cublas"},
    {ErrorKind::bad_request, "bad_request"},
    {ErrorKind::protocol, "protocol"},
    {ErrorKind::internal, "internal"},
}};

ErrorKind error_kind_from(const std::string& text) {
  for (const auto& [kind, name] : kErrorKinds)
    if (name == text) return kind;
  throw ProtocolError(fmt::format("unknown error kind '{}'", text));
}

// Types and their names, in the variant's order.
constexpr std::array<std::string_view, std::variant_size_v<Message>> kTypeNames{
    "hello", "device",   "prepare_shape",    "cublas_reference", "measure", "verified",      "result",
    "error", "shutdown", "time_interleaved", "interleaved",      "account", "worker_account"};

json encode_samples(const std::vector<RoundSample>& samples) {
  json a = json::array();
  for (const auto& s : samples) a.push_back({s.round, s.position, s.ms});
  return a;
}

std::vector<RoundSample> decode_samples(const json& j) {
  std::vector<RoundSample> out;
  for (const auto& s : j.get_ref<const json::array_t&>())
    out.push_back({s.at(0).get<int>(), s.at(1).get<int>(), s.at(2).get<double>()});
  return out;
}

json encode_optional(const std::optional<TimingStats>& t) {
  return t ? wire::encode(*t) : json(nullptr);
}

std::optional<TimingStats> decode_optional_timing(const json& j) {
  if (j.is_null()) return std::nullopt;
  return wire::decode_timing(j);
}

Params decode_params(const json& j) {
  try {
    return params_from_json(j);
  } catch (const ProtocolError&) {
    throw;
  } catch (const Error& e) {
    throw ProtocolError(fmt::format("bad params: {}", e.what()));
  }
}

json encode_noise_stop(const std::optional<NoiseStop>& n) {
  if (!n) return nullptr;
  return {{"target", n->target}, {"min_samples", n->min_samples}, {"max_time_s", n->max_time_s}};
}

std::optional<NoiseStop> decode_noise_stop(const json& j) {
  if (j.is_null()) return std::nullopt;
  return NoiseStop{j.at("target").get<double>(), j.at("min_samples").get<int>(), j.at("max_time_s").get<double>()};
}

json encode_screen(const std::optional<ScreenRule>& r) {
  if (!r) return nullptr;
  return {{"threshold", r->threshold}, {"launches", r->launches}};
}

std::optional<ScreenRule> decode_screen(const json& j) {
  if (j.is_null()) return std::nullopt;
  return ScreenRule{j.at("threshold").get<double>(), j.at("launches").get<int>()};
}

L2Mode decode_l2(const json& j) {
  const auto mode = l2_mode_from_string(j.get<std::string>());
  if (!mode) throw ProtocolError(fmt::format("unknown L2 mode {}", j.dump()));
  return *mode;
}

BatchEnqueue decode_batches(const json& j) {
  const auto how = batch_enqueue_from_string(j.get<std::string>());
  if (!how) throw ProtocolError(fmt::format("unknown batch enqueueing {}", j.dump()));
  return *how;
}

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

struct Encoder {
  json operator()(const HelloRequest& m) const {
    return {{"protocol", m.protocol}, {"device_ordinal", m.device_ordinal}};
  }
  json operator()(const HelloReply& m) const {
    return {{"protocol", m.protocol}, {"device", wire::encode(m.device)}, {"pid", m.pid}};
  }
  json operator()(const PrepareShapeRequest& m) const {
    return {{"shape", wire::encode(m.shape)},
            {"seed", m.seed},
            {"warmup", m.warmup},
            {"runs", m.runs},
            {"iters", m.iters},
            {"cublaslt", m.cublaslt},
            {"atol", m.atol},
            {"rtol", m.rtol},
            {"l2", std::string(to_string(m.l2))},
            {"batches", std::string(to_string(m.batches))},
            {"settle_ms", m.settle_ms},
            {"hold", {{"keep_warm_ms", m.hold.keep_warm_ms}, {"idle_settle_ms", m.hold.idle_settle_ms}}},
            {"problem", m.kind.name()},
            {"alpha", m.alpha},
            {"beta", m.beta}};
  }
  json operator()(const PrepareShapeReply& m) const {
    return {{"reference", wire::encode(m.reference)},
            {"settled_ms", m.settled_ms},
            {"inputs_kept", m.inputs_kept},
            {"cublaslt", m.cublaslt ? wire::encode(*m.cublaslt) : json(nullptr)}};
  }
  json operator()(const MeasureRequest& m) const {
    return {{"family", m.family},
            {"params", to_json(m.params)},
            {"cubin", json::binary(std::vector<std::uint8_t>(m.cubin.begin(), m.cubin.end()))},
            {"lowered_name", m.lowered_name},
            {"geometry", wire::encode(m.geometry)},
            {"atol", m.atol},
            {"rtol", m.rtol},
            {"warmup", m.warmup},
            {"runs", m.runs},
            {"iters", m.iters},
            {"pair_with_cublas", m.pair_with_cublas},
            {"l2", std::string(to_string(m.l2))},
            {"batches", std::string(to_string(m.batches))},
            {"noise_stop", encode_noise_stop(m.noise_stop)},
            {"screen", encode_screen(m.screen)},
            {"screen_against_ms", optional_number(m.screen_against_ms)}};
  }
  json operator()(const VerifiedReply& m) const {
    return {{"status", std::string(to_string(m.status))},
            {"error", m.error ? wire::encode(*m.error) : json(nullptr)},
            {"first_launch_ms", m.first_launch_ms},
            {"message", m.message},
            {"settled_ms", m.settled_ms}};
  }
  json operator()(const ResultReply& m) const { return {{"measurement", wire::encode(m.measurement)}}; }
  json operator()(const ErrorReply& m) const {
    return {{"kind", std::string(to_string(m.kind))}, {"code", m.code}, {"message", m.message}, {"fatal", m.fatal}};
  }
  json operator()(const ShutdownRequest&) const { return json::object(); }
  json operator()(const AccountRequest&) const { return json::object(); }
  json operator()(const AccountReply& m) const { return to_json(m.phases); }
  json operator()(const TimeInterleavedRequest& m) const {
    json kernels = json::array();
    for (const auto& k : m.kernels)
      kernels.push_back({{"family", k.family},
                         {"params", to_json(k.params)},
                         {"cubin", json::binary(std::vector<std::uint8_t>(k.cubin.begin(), k.cubin.end()))},
                         {"lowered_name", k.lowered_name},
                         {"geometry", wire::encode(k.geometry)},
                         {"expected_ms", k.expected_ms}});
    return {{"kernels", kernels},     {"atol", m.atol},     {"rtol", m.rtol},
            {"warmup", m.warmup},     {"rounds", m.rounds}, {"iters", m.iters},
            {"cublaslt", m.cublaslt}, {"graphs", m.graphs}, {"settle_ms", m.settle_ms}};
  }
  json operator()(const InterleavedReply& m) const {
    json kernels = json::array();
    for (const auto& k : m.kernels)
      kernels.push_back({{"status", std::string(to_string(k.status))},
                         {"error", k.error ? wire::encode(*k.error) : json(nullptr)},
                         {"message", k.message},
                         {"samples", encode_samples(k.samples)},
                         {"timing", encode_optional(k.timing)}});
    return {{"kernels", kernels},
            {"cublas", encode_samples(m.cublas)},
            {"cublas_timing", encode_optional(m.cublas_timing)},
            {"cublaslt", encode_samples(m.cublaslt)},
            {"cublaslt_timing", encode_optional(m.cublaslt_timing)},
            {"cublaslt_message", m.cublaslt_message},
            {"sm_clock_mhz", m.sm_clock_mhz},
            {"graphs", m.graphs},
            {"graphs_message", m.graphs_message},
            {"settled_ms", m.settled_ms},
            {"settle_rounds", m.settle_rounds},
            {"context_lost", m.context_lost}};
  }
};

// One decoder per message type with more than a line to it; decode_body picks by type.
Message decode_prepare_shape(const json& j) {
  const json& hold = j.at("hold");
  std::string why;
  const auto kind = ProblemKind::parse(j.at("problem").get<std::string>(), &why);
  if (!kind) throw ProtocolError(fmt::format("prepare_shape: {}", why));
  return PrepareShapeRequest{wire::decode_shape(j.at("shape")),
                             j.at("seed").get<std::uint64_t>(),
                             j.at("warmup").get<int>(),
                             j.at("runs").get<int>(),
                             j.at("iters").get<int>(),
                             j.at("cublaslt").get<bool>(),
                             j.at("atol").get<double>(),
                             j.at("rtol").get<double>(),
                             decode_l2(j.at("l2")),
                             decode_batches(j.at("batches")),
                             j.at("settle_ms").get<int>(),
                             ClockHold{hold.at("keep_warm_ms").get<int>(), hold.at("idle_settle_ms").get<int>()},
                             *kind,
                             j.at("alpha").get<float>(),
                             j.at("beta").get<float>()};
}

Message decode_cublas_reference_reply(const json& j) {
  PrepareShapeReply r{wire::decode_cublas_reference(j.at("reference")), std::nullopt, j.at("settled_ms").get<double>(),
                      j.at("inputs_kept").get<bool>()};
  if (!j.at("cublaslt").is_null()) r.cublaslt = wire::decode_cublaslt_reference(j.at("cublaslt"));
  return r;
}

Message decode_measure(const json& j) {
  MeasureRequest m;
  m.family = j.at("family").get<std::string>();
  m.params = decode_params(j.at("params"));
  const auto& bytes = j.at("cubin").get_binary();
  m.cubin.assign(bytes.begin(), bytes.end());
  m.lowered_name = j.at("lowered_name").get<std::string>();
  m.geometry = wire::decode_geometry(j.at("geometry"));
  m.atol = j.at("atol").get<double>();
  m.rtol = j.at("rtol").get<double>();
  m.warmup = j.at("warmup").get<int>();
  m.runs = j.at("runs").get<int>();
  m.iters = j.at("iters").get<int>();
  m.pair_with_cublas = j.at("pair_with_cublas").get<bool>();
  m.l2 = decode_l2(j.at("l2"));
  m.batches = decode_batches(j.at("batches"));
  m.noise_stop = decode_noise_stop(j.at("noise_stop"));
  m.screen = decode_screen(j.at("screen"));
  if (!j.at("screen_against_ms").is_null()) m.screen_against_ms = j.at("screen_against_ms").get<double>();
  return m;
}

Message decode_verified(const json& j) {
  VerifiedReply v;
  v.status = wire::decode_status(j.at("status"));
  if (!j.at("error").is_null()) v.error = wire::decode_error_stats(j.at("error"));
  v.first_launch_ms = j.at("first_launch_ms").get<double>();
  v.message = j.at("message").get<std::string>();
  v.settled_ms = j.at("settled_ms").get<double>();
  return v;
}

Message decode_time_interleaved(const json& j) {
  TimeInterleavedRequest m;
  for (const auto& k : j.at("kernels").get_ref<const json::array_t&>()) {
    InterleavedKernel kernel;
    kernel.family = k.at("family").get<std::string>();
    kernel.params = decode_params(k.at("params"));
    const auto& bytes = k.at("cubin").get_binary();
    kernel.cubin.assign(bytes.begin(), bytes.end());
    kernel.lowered_name = k.at("lowered_name").get<std::string>();
    kernel.geometry = wire::decode_geometry(k.at("geometry"));
    kernel.expected_ms = k.at("expected_ms").get<double>();
    m.kernels.push_back(std::move(kernel));
  }
  m.atol = j.at("atol").get<double>();
  m.rtol = j.at("rtol").get<double>();
  m.warmup = j.at("warmup").get<int>();
  m.rounds = j.at("rounds").get<int>();
  m.iters = j.at("iters").get<int>();
  m.cublaslt = j.at("cublaslt").get<bool>();
  m.graphs = j.at("graphs").get<bool>();
  m.settle_ms = j.at("settle_ms").get<int>();
  return m;
}

Message decode_interleaved(const json& j) {
  InterleavedReply r;
  for (const auto& k : j.at("kernels").get_ref<const json::array_t&>()) {
    InterleavedKernelResult kernel;
    kernel.status = wire::decode_status(k.at("status"));
    if (!k.at("error").is_null()) kernel.error = wire::decode_error_stats(k.at("error"));
    kernel.message = k.at("message").get<std::string>();
    kernel.samples = decode_samples(k.at("samples"));
    kernel.timing = decode_optional_timing(k.at("timing"));
    r.kernels.push_back(std::move(kernel));
  }
  r.cublas = decode_samples(j.at("cublas"));
  r.cublas_timing = decode_optional_timing(j.at("cublas_timing"));
  r.cublaslt = decode_samples(j.at("cublaslt"));
  r.cublaslt_timing = decode_optional_timing(j.at("cublaslt_timing"));
  r.cublaslt_message = j.at("cublaslt_message").get<std::string>();
  r.sm_clock_mhz = j.at("sm_clock_mhz").get<double>();
  r.graphs = j.at("graphs").get<bool>();
  r.graphs_message = j.at("graphs_message").get<std::string>();
  r.settled_ms = j.at("settled_ms").get<double>();
  r.settle_rounds = j.at("settle_rounds").get<int>();
  r.context_lost = j.at("context_lost").get<bool>();
  return r;
}

Message decode_body(std::string_view type, const json& j) {
  if (type == "hello") return HelloRequest{j.at("protocol").get<int>(), j.at("device_ordinal").get<int>()};
  if (type == "device")
    return HelloReply{j.at("protocol").get<int>(), wire::decode_device_info(j.at("device")), j.at("pid").get<int>()};
  if (type == "prepare_shape") return decode_prepare_shape(j);
  if (type == "cublas_reference") return decode_cublas_reference_reply(j);
  if (type == "measure") return decode_measure(j);
  if (type == "verified") return decode_verified(j);
  if (type == "result") return ResultReply{wire::decode_measurement(j.at("measurement"))};
  if (type == "error")
    return ErrorReply{error_kind_from(j.at("kind").get<std::string>()), j.at("code").get<int>(),
                      j.at("message").get<std::string>(), j.at("fatal").get<bool>()};
  if (type == "shutdown") return ShutdownRequest{};
  if (type == "account") return AccountRequest{};
  if (type == "worker_account") return AccountReply{worker_phases_from_json(j)};
  if (type == "time_interleaved") return decode_time_interleaved(j);
  if (type == "interleaved") return decode_interleaved(j);
  throw ProtocolError(fmt::format("unknown message type '{}'", type));
}

}  // namespace

std::string_view to_string(ErrorKind kind) {
  for (const auto& [k, name] : kErrorKinds)
    if (k == kind) return name;
  return "internal";
}

std::string_view message_type(const Message& message) {
  return kTypeNames[message.index()];
}

json to_json_message(const Message& message) {
  json j = std::visit(Encoder{}, message);
  j["type"] = std::string(message_type(message));
  return j;
}

Message message_from_json(const json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw ProtocolError("a message must be an object with a string 'type'");
  const std::string type = j["type"].get<std::string>();
  return wire::guarded(("'" + type + "' message").c_str(), [&] { return decode_body(type, j); });
}

std::vector<std::uint8_t> encode_frame(const Message& message) {
  const std::vector<std::uint8_t> payload = json::to_msgpack(to_json_message(message));
  if (payload.size() > kMaxFrameBytes)
    throw ProtocolError(fmt::format("a '{}' message of {} bytes exceeds the {} byte frame limit", message_type(message),
                                    payload.size(), kMaxFrameBytes));
  const auto size = static_cast<std::uint32_t>(payload.size());
  std::vector<std::uint8_t> frame(4 + payload.size());
  for (std::size_t i = 0; i < 4; ++i) frame[i] = static_cast<std::uint8_t>(size >> (8 * i));  // little endian
  if (!payload.empty()) std::memcpy(frame.data() + 4, payload.data(), payload.size());
  return frame;
}

void FrameReader::append(std::span<const std::uint8_t> bytes) {
  if (offset_ > 0) {  // drop what was already returned
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(offset_));
    offset_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::optional<Message> FrameReader::next() {
  if (pending_bytes() < 4) return std::nullopt;
  const std::uint8_t* p = buffer_.data() + offset_;
  const std::uint32_t size =
      std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
  if (size > kMaxFrameBytes)
    throw ProtocolError(fmt::format("frame length {} exceeds the {} byte limit", size, kMaxFrameBytes));
  if (pending_bytes() < 4 + std::size_t{size}) return std::nullopt;
  json j;
  try {
    j = json::from_msgpack(p + 4, p + 4 + size);
  } catch (const json::exception& e) {
    throw ProtocolError(fmt::format("a {} byte frame is not valid MessagePack: {}", size, e.what()));
  }
  offset_ += 4 + std::size_t{size};
  if (offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  }
  return message_from_json(j);
}

Message decode_frame(std::span<const std::uint8_t> frame) {
  FrameReader reader;
  reader.append(frame);
  auto message = reader.next();
  if (!message) throw ProtocolError(fmt::format("truncated frame: {} bytes, not a whole frame", frame.size()));
  if (reader.pending_bytes() != 0)
    throw ProtocolError(fmt::format("{} bytes after the end of the frame", reader.pending_bytes()));
  return std::move(*message);
}

}  // namespace mpgemm
