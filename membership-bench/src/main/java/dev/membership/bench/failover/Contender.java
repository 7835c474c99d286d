package dev.membership.bench.failover;

import java.time.Duration;

/**
 * One leader-election library under the same failover scenario: members join a group, one
 * leads, the leader crashes or leaves, and the harness times how long until another
 * member leads.
 */
public interface Contender extends AutoCloseable {

	String name();

	/** The library's settings that correspond to our lease, for the table. */
	String describe(Duration lease);

	/**
	 * Starts a member that competes for leadership with a lease (or session, or TTL) of
	 * {@code lease}.
	 */
	Member join(String id, Duration lease, ElectedCallback onElected) throws Exception;

	@Override
	void close() throws Exception;

	interface Member {

		String id();

		boolean isLeader();

		/** Dies without a word: nothing released, and its connection goes silent. */
		void crash();

		/** Leaves the way an application shuts down: releases what it holds. */
		void leave();

		/**
		 * Frees what the member still holds in this JVM (threads, clients); never
		 * releases anything first.
		 */
		void dispose();

	}

	@FunctionalInterface
	interface ElectedCallback {

		/**
		 * {@code atNanos}: {@link System#nanoTime()} when the member learned it leads.
		 */
		void elected(String memberId, long atNanos);

	}

}
