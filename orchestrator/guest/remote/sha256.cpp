#include "orchestrator/guest/remote/sha256.hpp"

#include <openssl/evp.h>

#include <array>
#include <memory>

#include "common/result.hpp"

namespace topolab::remote {
namespace {

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

// OpenSSL's libcrypto (EVP) instead of a hand-written FIPS 180-4 loop: a maintained,
// vectorised implementation (SHA-NI/AVX2), and one less piece of crypto code to review.
std::string sha256_hex(std::string_view bytes) {
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  // Each call fails only without memory or a usable SHA-256 provider: a broken installation.
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest.data(), &length) != 1 || length != 32) {
    throw FatalError("OpenSSL could not compute a SHA-256");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

}  // namespace topolab::remote
