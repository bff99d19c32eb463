import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";

/**
 * A SQLite database's write-ahead log as it stands on disk: the size of its file, and how many times the
 * log has started over (the checkpoint sequence number in its header, bytes 12-15, one more at each
 * restart). The test and `bench:wal-stall` watch the log with it; 0 and 0 while there is no log file.
 */
export function walFile(databaseFile: string): { bytes: number; restarts: number } {
  const path = `${databaseFile}-wal`;
  if (!existsSync(path)) return { bytes: 0, restarts: 0 };
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(16);
    const restarts = readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
    return { bytes: statSync(path).size, restarts };
  } finally {
    closeSync(fd);
  }
}
