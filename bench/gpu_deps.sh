#!/usr/bin/env bash
# The build dependencies on a machine without Debian's packages (the lent GPU machine: CUDA,
# a CUDA PyTorch, cmake and g++, but no HDF5, CLI11, Eigen, nlohmann-json or toml++, and no apt).
# Unpacks Debian 12 .deb files into PREFIX (never into /) and prints the exports that CMake,
# the linker and the programs need:
#   eval "$(bash bench/gpu_deps.sh .devdeps [/opt/fusekilab-deps])"
#   cmake -S . -B build-cuda $FUSEKILAB_CMAKE_ARGS ...    (bench/gpu_bench.sh uses it)
# The .debs, fetched on a Debian 12 machine into an ignored folder (`apt-get download`):
#   libhdf5-dev libhdf5-103-1 libhdf5-hl-100 libsz2 libaec0 libaec-dev libcli11-dev libeigen3-dev
#   nlohmann-json3-dev libtomlplusplus-dev libtomlplusplus3, and the libraries libhdf5 needs
#   through libcurl4 and libssl3 (listed with `ldd` on libhdf5_serial.so.103, less glibc,
#   libstdc++ and libgcc).
# Only the libraries whose sonames the machine lacks (`ldconfig -p`) are put on LD_LIBRARY_PATH,
# so the machine's own newer copies (libssl, libz...) are not shadowed; FUSEKILAB_DEPS_ALL=1 puts
# all of them there (to try the closure on a machine that has everything).
set -euo pipefail
debs=${1:?usage: gpu_deps.sh DEB_DIR [PREFIX]}
prefix=${2:-/opt/fusekilab-deps}
case "$prefix" in /|/usr|/usr/*) echo "gpu_deps: not unpacking into $prefix" >&2; exit 2 ;; esac
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
arch=x86_64-linux-gnu
n=0
for f in "$debs"/*.deb; do
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$f" "$prefix"
  else  # ar and tar alone: a .deb is an ar archive holding data.tar.*
    t=$(mktemp -d) abs=$(realpath "$f")
    (cd "$t" && ar x "$abs") && tar -xf "$t"/data.tar.* -C "$prefix" && rm -rf "$t"
  fi
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "gpu_deps: no .deb files in $debs" >&2; exit 2; }

# Sonames this machine lacks, as links in one folder.
extra="$prefix/fusekilab-lib"
rm -rf "$extra" && mkdir -p "$extra"
have=$(ldconfig -p 2>/dev/null | awk 'NR > 1 {print $1}' || true)
for so in "$prefix"/lib/$arch/*.so.* "$prefix"/usr/lib/$arch/*.so.*; do
  name=$(basename "$so")
  [[ "$name" =~ \.so\.[0-9]+$ ]] || continue  # the soname links only, not libfoo.so.1.2.3
  [ -e "$so" ] || continue
  if [ "${FUSEKILAB_DEPS_ALL:-0}" = 1 ] || ! grep -qxF "$name" <<<"$have"; then
    ln -sf "$so" "$extra/$name"
  fi
done

# Debian's HDF5 layout: headers in include/hdf5/serial, libhdf5.so in lib/<arch>/hdf5/serial.
# Pointing FindHDF5 at it (and naming both files) keeps it from a system h5cc or a missing
# system library; -rpath-link lets the linker resolve libhdf5's own needs (libcurl, libsz...).
hdf5_inc="$prefix/usr/include/hdf5/serial"
hdf5_lib="$prefix/usr/lib/$arch/hdf5/serial/libhdf5.so"
[ -f "$hdf5_inc/hdf5.h" ] && [ -e "$hdf5_lib" ] || { echo "gpu_deps: no libhdf5-dev in $debs" >&2; exit 2; }
cmake_args="-DHDF5_ROOT=$prefix/usr/lib/$arch;$prefix/usr/include -DHDF5_NO_FIND_PACKAGE_CONFIG_FILE=ON"
cmake_args+=" -DHDF5_C_INCLUDE_DIR=$hdf5_inc -DHDF5_hdf5_LIBRARY_RELEASE=$hdf5_lib"
cmake_args+=" -DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$extra"

# CMake's package search: the prefix's usr first (CLI11, Eigen3, nlohmann_json, tomlplusplus),
# then a CUDA PyTorch's LibTorch if python3 has one.
search="$prefix/usr"
torch=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
[ -z "$torch" ] || search+=":$torch"

echo "export FUSEKILAB_DEPS='$prefix'"
echo "export CMAKE_PREFIX_PATH='$search${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}'"
echo "export FUSEKILAB_CMAKE_ARGS='$cmake_args${FUSEKILAB_CMAKE_ARGS:+ $FUSEKILAB_CMAKE_ARGS}'"
echo "export LD_LIBRARY_PATH='$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}'"
# LibTorch's CMake config (pip's too) finds the CUDA toolkit and enables CMake's CUDA language:
# name nvcc and the GPU's architecture (9.0: H100/H200) unless already set.
nvcc=${CUDACXX:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  cuda_root=$(dirname "$(dirname "$(realpath "$nvcc")")")
  echo "export CUDACXX='$nvcc' CUDA_HOME='${CUDA_HOME:-$cuda_root}' CUDAToolkit_ROOT='${CUDAToolkit_ROOT:-$cuda_root}'"
  # (LibTorch ignores CMake's CUDAARCHS / CMAKE_CUDA_ARCHITECTURES, with a warning.)
  echo "export TORCH_CUDA_ARCH_LIST='${TORCH_CUDA_ARCH_LIST:-9.0}'"
fi
echo "gpu_deps: $n packages in $prefix; $(ls "$extra" | wc -l) libraries on LD_LIBRARY_PATH" >&2
