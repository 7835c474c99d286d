package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The answer to a heartbeat. {@code writtenAt} is the store's time of the write (its
 * clock, read without a round trip of its own), null only when the store could not tell.
 * {@code tookOver}: the node's document belonged to another incarnation, so another
 * process wrote it since this one's last heartbeat (or before its first).
 */
public record Heartbeat(@Nullable Instant writtenAt, boolean tookOver) {
}
