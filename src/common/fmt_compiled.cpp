// fmt's compiled part, built once here instead of in every translation unit (FMT_HEADER_ONLY compiled
// format-inl.h into each of ~300 objects: about 40% of a CI build's time, 2026-12-08). Linking it statically still
// leaves the binaries free of a run-time libfmt, whose version differs on the device machine's image.
// The definitions come from the header; the instantiations below are the ones fmt's headers declare `extern` or
// leave to the compiled library (the floating-point and locale paths), for char only: mpgemm formats no wide text.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;

}  // namespace detail
FMT_END_NAMESPACE
