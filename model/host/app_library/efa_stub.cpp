// libefa.so.1 for applications attached to rnicsim (rnicsim exec): every
// entry point Debian's libefa (44.0-2) exports, each answering as the real
// one does for a device that is not an EFA (vendor_stub.hpp). The symbol
// versions are libefa.map's.
#include <infiniband/efadv.h>

#include "host/app_library/vendor_stub.hpp"

namespace {

constexpr rnicsim::app::VendorRefusal kRefuse{"libefa"};

}  // namespace

extern "C" {

ibv_qp* efadv_create_driver_qp(ibv_pd*, ibv_qp_init_attr*, uint32_t) {
  return kRefuse.pointer<ibv_qp>("efadv_create_driver_qp");
}

ibv_qp* efadv_create_qp_ex(ibv_context*, ibv_qp_init_attr_ex*, efadv_qp_init_attr*, uint32_t) {
  return kRefuse.pointer<ibv_qp>("efadv_create_qp_ex");
}

int efadv_query_device(ibv_context*, efadv_device_attr*, uint32_t) {
  return kRefuse.status("efadv_query_device");
}

int efadv_query_ah(ibv_ah*, efadv_ah_attr*, uint32_t) { return kRefuse.status("efadv_query_ah"); }

ibv_cq_ex* efadv_create_cq(ibv_context*, ibv_cq_init_attr_ex*, efadv_cq_init_attr*, uint32_t) {
  return kRefuse.pointer<ibv_cq_ex>("efadv_create_cq");
}

efadv_cq* efadv_cq_from_ibv_cq_ex(ibv_cq_ex*) {
  return kRefuse.pointer<efadv_cq>("efadv_cq_from_ibv_cq_ex");
}

}  // extern "C"
