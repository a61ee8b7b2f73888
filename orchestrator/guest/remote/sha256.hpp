#pragma once
// SHA-256 (FIPS 180-4) of bytes in memory: the content key of an uploaded volume
// (storage_upload.hpp). Computed by OpenSSL's libcrypto (EVP).
#include <string>
#include <string_view>

namespace topolab::remote {

// 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace topolab::remote
