// Bindings of the autocast state (csrc/ops/autocast.h) that minitorch.amp.autocast drives.
#include "ops/autocast.h"
#include "python/bind.h"

namespace mt {

namespace {

DeviceType parse_device_type(const std::string& s) {
  if (s == "cuda") return DeviceType::CUDA;
  if (s == "cpu") return DeviceType::CPU;
  throw py::value_error("User specified an unsupported autocast device_type '" + s +
                        "'; minitorch supports 'cuda' and 'cpu'");
}

const char* policy_name(autocast::Policy p) {
  switch (p) {
    case autocast::Policy::Lower:
      return "lower";
    case autocast::Policy::Fp32:
      return "fp32";
    case autocast::Policy::Promote:
      return "promote";
    case autocast::Policy::Banned:
      return "banned";
    case autocast::Policy::Same:
      break;
  }
  return "same";
}

thread_local int tls_nesting = 0;

}  // namespace

void init_amp(py::module_& m) {
  m.def("_is_autocast_enabled",
        [](const std::string& d) { return autocast::is_enabled(parse_device_type(d)); });
  m.def("_set_autocast_enabled",
        [](const std::string& d, bool on) { autocast::set_enabled(parse_device_type(d), on); });
  m.def("_get_autocast_dtype", [](const std::string& d) {
    return py::cast(dtype_object(autocast::get_dtype(parse_device_type(d))),
                    py::return_value_policy::reference);
  });
  m.def("_set_autocast_dtype", [](const std::string& d, py::handle dt) {
    autocast::set_dtype(parse_device_type(d), parse_dtype(dt));
  });
  m.def("_is_autocast_cache_enabled", &autocast::is_cache_enabled);
  m.def("_set_autocast_cache_enabled", &autocast::set_cache_enabled);
  m.def("_clear_autocast_cache", &autocast::clear_cache);
  m.def("_autocast_increment_nesting", [] { return ++tls_nesting; });
  m.def("_autocast_decrement_nesting", [] { return --tls_nesting; });
  // [(op, policy on CUDA, policy on CPU)]: the table itself, so tests iterate the same list the ops use
  m.def("_autocast_policy", [] {
    py::list out;
    for (int i = 0; i < static_cast<int>(autocast::Op::NumOps); ++i) {
      auto op = static_cast<autocast::Op>(i);
      out.append(py::make_tuple(autocast::op_name(op), policy_name(autocast::policy(op, DeviceType::CUDA)),
                                policy_name(autocast::policy(op, DeviceType::CPU))));
    }
    return out;
  });
}

}  // namespace mt
