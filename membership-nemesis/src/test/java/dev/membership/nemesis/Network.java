package dev.membership.nemesis;

import java.util.ArrayList;
import java.util.List;

/**
 * The nodes' network: a bridge in the host's namespace ({@code 10.77.K.1}, where the
 * database's forwarder listens) and a network namespace per node
 * ({@code 10.77.K.(10+i)}), joined to it by a veth pair. The host's address is the
 * database's, for a node (and the harness's, which asks the nodes whether they are
 * ready). Faults are nftables rules in a node's namespace, so that its kernel drops the
 * packets: to and from the database, to and from its peers, one way only, or a share of
 * them at random. {@code K} is drawn per run, so that runs never share names.
 */
final class Network implements AutoCloseable {

	final String prefix;

	final String hostAddress;

	private final int subnet;

	private final List<String> namespaces = new ArrayList<>();

	/**
	 * The network of {@code nodes} nodes on the first subnet from {@code first} (1 to
	 * 250) that no other run uses now: its bridge is taken atomically, and nothing
	 * another run made is ever removed.
	 */
	Network(int first, int nodes) {
		int subnet = first;
		for (int tries = 0; Shell.tryRun("ip", "link", "add", "nm" + subnet + "b", "type", "bridge")
			.contains("exists"); tries++) {
			if (tries == 250) {
				throw new IllegalStateException("no free subnet 10.77.K.0/24 for the nemesis's bridge");
			}
			subnet = subnet % 250 + 1;
		}
		this.subnet = subnet;
		this.prefix = "nm" + subnet;
		this.hostAddress = "10.77." + subnet + ".1";
		try {
			build(nodes);
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	private void build(int nodes) {
		String bridge = this.prefix + "b";
		Shell.run("ip", "addr", "add", this.hostAddress + "/24", "dev", bridge);
		Shell.run("ip", "link", "set", bridge, "up");
		for (int i = 1; i <= nodes; i++) {
			String ns = namespace(i);
			this.namespaces.add(ns);
			Shell.run("ip", "netns", "add", ns);
			String host = this.prefix + "h" + i;
			String peer = this.prefix + "p" + i;
			Shell.run("ip", "link", "add", host, "type", "veth", "peer", "name", peer);
			Shell.run("ip", "link", "set", peer, "netns", ns);
			Shell.run("ip", "link", "set", host, "master", bridge);
			Shell.run("ip", "link", "set", host, "up");
			Shell.in(ns, "ip", "link", "set", "lo", "up");
			Shell.in(ns, "ip", "addr", "add", address(i) + "/24", "dev", peer);
			Shell.in(ns, "ip", "link", "set", peer, "up");
			Shell.in(ns, "nft", "add", "table", "inet", "nemesis");
			Shell.in(ns, "nft", "add", "chain", "inet", "nemesis", "in",
					"{ type filter hook input priority 0; policy accept; }");
			Shell.in(ns, "nft", "add", "chain", "inet", "nemesis", "out",
					"{ type filter hook output priority 0; policy accept; }");
		}
	}

	String namespace(int node) {
		return this.prefix + "n" + node;
	}

	String address(int node) {
		return "10.77." + this.subnet + "." + (10 + node);
	}

	/** Node {@code node} and the database no longer reach each other. */
	void cutDatabase(int node) {
		toDatabase(node, "drop");
		fromDatabase(node, "drop");
	}

	/**
	 * Node {@code node}'s packets to the database are lost; the database's still arrive.
	 */
	void cutToDatabase(int node) {
		toDatabase(node, "drop");
	}

	/**
	 * {@code percent} of node {@code node}'s packets to and from the database are lost.
	 */
	void lose(int node, int percent) {
		toDatabase(node, "numgen random mod 100 < " + percent + " drop");
		fromDatabase(node, "numgen random mod 100 < " + percent + " drop");
	}

	/** Node {@code node} and its peers no longer reach each other. */
	void cutPeers(int node) {
		String subnet = "10.77." + this.subnet + ".0/24";
		rule(node, "out", "ip daddr " + subnet + " ip daddr != " + this.hostAddress + " drop");
		rule(node, "in", "ip saddr " + subnet + " ip saddr != " + this.hostAddress + " drop");
	}

	/** Every rule of node {@code node} gone. */
	void heal(int node) {
		Shell.in(namespace(node), "nft", "flush", "chain", "inet", "nemesis", "in");
		Shell.in(namespace(node), "nft", "flush", "chain", "inet", "nemesis", "out");
	}

	private void toDatabase(int node, String verdict) {
		rule(node, "out", "ip daddr " + this.hostAddress + " " + verdict);
	}

	private void fromDatabase(int node, String verdict) {
		rule(node, "in", "ip saddr " + this.hostAddress + " " + verdict);
	}

	private void rule(int node, String chain, String rule) {
		List<String> command = new ArrayList<>(List.of("nft", "add", "rule", "inet", "nemesis", chain));
		command.addAll(List.of(rule.split(" ")));
		Shell.in(namespace(node), command.toArray(String[]::new));
	}

	@Override
	public void close() {
		for (String ns : this.namespaces) {
			Shell.tryRun("ip", "netns", "del", ns);
		}
		Shell.tryRun("ip", "link", "del", this.prefix + "b");
	}

}
