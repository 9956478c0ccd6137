// Scaling out over NATS: which partitions this worker may consume, which edge receives for a bot.
export { PartitionLeases, type PartitionLeasesOptions } from "./partitionLeases.js";
export { ReceiverLease, type LeasedReceiver, type ReceiverLeaseOptions } from "./receiverLease.js";
export { partitionKey, presenceKey, readLeaseTable, receiverKey, type Lease, type LeaseBucket, type LeaseTable } from "./leaseBucket.js";
