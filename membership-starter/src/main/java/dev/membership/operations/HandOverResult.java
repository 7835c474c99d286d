package dev.membership.operations;

/**
 * A hand-over begun: {@code from} drains the group's leader-only work, then releases the
 * lease naming {@code to}.
 *
 * @param group the plain group
 * @param from this node
 * @param to the successor
 */
public record HandOverResult(String group, String from, String to) {
}
