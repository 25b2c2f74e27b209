// libmlx5.so.1 for applications attached to rnicsim (rnicsim exec): the
// mlx5 direct-verbs entry points Debian's perftest links against, each
// answering as the real libmlx5 does for a device its driver does not own
// (vendor_stub.hpp). Debian's libmlx5 cannot be loaded instead: it imports
// libibverbs' private provider interface (IBVERBS_PRIVATE_34), which drives
// a kernel device. The symbol versions are libmlx5.map's, Debian's 44.0-2.
#include <infiniband/mlx5dv.h>

#include "host/app_library/vendor_stub.hpp"

namespace {

constexpr rnicsim::app::VendorRefusal kRefuse{"libmlx5"};

}  // namespace

extern "C" {

bool mlx5dv_is_supported(ibv_device*) { return false; }

int mlx5dv_query_device(ibv_context*, mlx5dv_context*) {
  return kRefuse.status("mlx5dv_query_device");
}

ibv_context* mlx5dv_open_device(ibv_device*, mlx5dv_context_attr*) {
  return kRefuse.pointer<ibv_context>("mlx5dv_open_device");
}

ibv_qp* mlx5dv_create_qp(ibv_context*, ibv_qp_init_attr_ex*, mlx5dv_qp_init_attr*) {
  return kRefuse.pointer<ibv_qp>("mlx5dv_create_qp");
}

mlx5dv_qp_ex* mlx5dv_qp_ex_from_ibv_qp_ex(ibv_qp_ex*) {
  return kRefuse.pointer<mlx5dv_qp_ex>("mlx5dv_qp_ex_from_ibv_qp_ex");
}

int mlx5dv_devx_general_cmd(ibv_context*, const void*, size_t, void*, size_t) {
  return kRefuse.status("mlx5dv_devx_general_cmd");
}

mlx5dv_mkey* mlx5dv_create_mkey(mlx5dv_mkey_init_attr*) {
  return kRefuse.pointer<mlx5dv_mkey>("mlx5dv_create_mkey");
}

int mlx5dv_destroy_mkey(mlx5dv_mkey*) { return kRefuse.status("mlx5dv_destroy_mkey"); }

int mlx5dv_crypto_login(ibv_context*, mlx5dv_crypto_login_attr*) {
  return kRefuse.status("mlx5dv_crypto_login");
}

mlx5dv_dek* mlx5dv_dek_create(ibv_context*, mlx5dv_dek_init_attr*) {
  return kRefuse.pointer<mlx5dv_dek>("mlx5dv_dek_create");
}

int mlx5dv_dek_destroy(mlx5dv_dek*) { return kRefuse.status("mlx5dv_dek_destroy"); }

}  // extern "C"
