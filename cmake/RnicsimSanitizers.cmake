# RNICSIM_SANITIZE=ON instruments every project target with ASan and UBSan.
# UBSan findings abort so that ctest reports them as failures.
if(RNICSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
