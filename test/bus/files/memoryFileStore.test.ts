import { MemoryFileStore } from "../../../src/bus/files/memoryFileStore.js";
import { fileStoreContract } from "./fileStoreContract.js";

fileStoreContract("MemoryFileStore", async () => {
  const store = new MemoryFileStore();
  return { worker: store, edge: store };
});
