// Scaling out over NATS: which partitions this worker may consume.
export { PartitionLeases, type PartitionLeasesOptions } from "./partitionLeases.js";
export { partitionKey, presenceKey, readLeaseTable, type Lease, type LeaseBucket, type LeaseTable } from "./leaseBucket.js";
