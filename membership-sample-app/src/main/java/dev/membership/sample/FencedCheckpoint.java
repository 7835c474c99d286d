package dev.membership.sample;

/**
 * What a sample job's fenced checkpoint write did, whichever database keeps it.
 *
 * @param accepted whether the write was made under the job's epoch
 * @param supersededBy the newer epoch that had written first, or -1
 */
public record FencedCheckpoint(boolean accepted, long supersededBy) {
}
