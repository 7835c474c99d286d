/**
 * The lease writes: acquiring (Campaign), renewing what the node holds (Renewals, one
 * procedure; PartitionReads, the read that confirms a batch), releasing and the goodbye
 * (LeaseReleases), other nodes' notices (IncomingNotices), and what rides on a write
 * (LeaseMarks).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.lease;

import org.jspecify.annotations.NullMarked;
