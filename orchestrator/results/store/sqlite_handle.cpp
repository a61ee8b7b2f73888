#include "orchestrator/results/store/sqlite_handle.hpp"

#include <sqlite3.h>

namespace topolab::store {

// The only sqlite3_close and sqlite3_finalize of the store. Every statement is finalized before
// its database closes (a statement never outlives the owner of its SqliteDb), so the close
// succeeds; both accept a null handle.
void SqliteClose::operator()(sqlite3* db) const noexcept { sqlite3_close(db); }

void SqliteFinalize::operator()(sqlite3_stmt* stmt) const noexcept { sqlite3_finalize(stmt); }

}  // namespace topolab::store
