// Opens a PGlite data folder from a separate process; used to check the one-process guard.
import { openDatabase } from "../../lib/db/client";

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: open-folder <dataDir>");
openDatabase({ driver: "pglite", dataDir })
  .then(async (handle) => {
    console.log(`opened ${handle.location}`);
    await handle.close();
  })
  .catch((error: Error) => {
    console.error(error.message);
    process.exit(3);
  });
