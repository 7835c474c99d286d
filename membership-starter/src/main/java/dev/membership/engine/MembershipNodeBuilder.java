package dev.membership.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.event.MembershipEventListener;
import dev.membership.spi.BalancedPlacement;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.PlacementPolicy;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunObserver;

/**
 * Builds a {@link MembershipNode}:
 * {@code MembershipNode.builder(settings, store)...build()}.
 */
public final class MembershipNodeBuilder {

	final MembershipSettings settings;

	final MembershipStore store;

	MonotonicClock clock = MonotonicClock.system();

	Supplier<@Nullable String> advertisedAddress = () -> null;

	MembershipEventListener listener = MembershipEventListener.none();

	final List<MembershipEventListener> reactions = new ArrayList<>();

	Supplier<? extends List<? extends MembershipEventListener>> lateReactions = List::of;

	final List<NoticeChannel> noticeChannels = new ArrayList<>();

	Supplier<? extends List<? extends NoticeChannel>> lateNoticeChannels = List::of;

	final List<LeadershipObserver> observers = new ArrayList<>();

	final List<ElectionMetrics> metrics = new ArrayList<>();

	final List<RunObserver> runObservers = new ArrayList<>();

	@Nullable RunHistoryStore runHistory;

	int runHistoryBuffer = 10_000;

	boolean runHistoryErrorMessages = true;

	PlacementPolicy placement = new BalancedPlacement();

	@Nullable NodeRuntime runtime;

	MembershipNodeBuilder(MembershipSettings settings, MembershipStore store) {
		this.settings = Objects.requireNonNull(settings);
		this.store = Objects.requireNonNull(store);
	}

	/**
	 * The address is read once, at {@link MembershipNode#start()} (a web server port may
	 * be known only then).
	 */
	public MembershipNodeBuilder advertisedAddress(Supplier<@Nullable String> address) {
		this.advertisedAddress = Objects.requireNonNull(address);
		return this;
	}

	public MembershipNodeBuilder advertisedAddress(String address) {
		return advertisedAddress(() -> address);
	}

	/**
	 * The application's listener: gets every event, in order, on a thread of its own;
	 * what it throws is logged (once per event type) and changes nothing else.
	 */
	public MembershipNodeBuilder listener(MembershipEventListener listener) {
		this.listener = Objects.requireNonNull(listener);
		return this;
	}

	/**
	 * Adds a reaction: called with every event, in order, on the node's event thread,
	 * before and independently of the application's listener; each reaction is isolated
	 * from the others. For the starter's own reactions (readiness, leadership notices,
	 * meters); must be fast.
	 */
	public MembershipNodeBuilder reaction(MembershipEventListener reaction) {
		this.reactions.add(Objects.requireNonNull(reaction));
		return this;
	}

	/**
	 * Reactions looked up when the node starts, after those added one by one (for
	 * dependency-injected ones).
	 */
	public MembershipNodeBuilder reactions(Supplier<? extends List<? extends MembershipEventListener>> reactions) {
		this.lateReactions = Objects.requireNonNull(reactions);
		return this;
	}

	/** Adds a channel where the node hears other nodes' leadership news. */
	public MembershipNodeBuilder noticeChannel(NoticeChannel channel) {
		this.noticeChannels.add(Objects.requireNonNull(channel));
		return this;
	}

	/** Notice channels looked up when the node starts, after those added one by one. */
	public MembershipNodeBuilder noticeChannels(Supplier<? extends List<? extends NoticeChannel>> channels) {
		this.lateNoticeChannels = Objects.requireNonNull(channels);
		return this;
	}

	/**
	 * Adds an observer of the instants this node's beliefs that it leads begin and end.
	 * Each is called in the order added; what one throws is logged and ignored.
	 */
	public MembershipNodeBuilder observer(LeadershipObserver observer) {
		this.observers.add(Objects.requireNonNull(observer));
		return this;
	}

	/**
	 * How units of work are placed ({@link BalancedPlacement} by default). Every node of
	 * a cluster must use the same policy: the coordinator places with it, and a node that
	 * sees a unit released computes with it who takes it next.
	 */
	public MembershipNodeBuilder placement(PlacementPolicy policy) {
		this.placement = Objects.requireNonNull(policy);
		return this;
	}

	/**
	 * Adds metrics of the election loop's outcomes. Each is called in the order added;
	 * what one throws is logged and ignored.
	 */
	public MembershipNodeBuilder metrics(ElectionMetrics metrics) {
		this.metrics.add(Objects.requireNonNull(metrics));
		return this;
	}

	/**
	 * Adds an observer of every run of work registered with this node's terms
	 * (observations, a run history). Without any, a run costs nothing more than its
	 * registration.
	 */
	public MembershipNodeBuilder runObserver(RunObserver observer) {
		this.runObservers.add(Objects.requireNonNull(observer));
		return this;
	}

	/**
	 * Writes every run's start and end to {@code history}, in one call per renewal
	 * interval in which any run began or ended; while it cannot be reached, keeps the
	 * newest {@code buffer} runs' records and drops older ones.
	 */
	public MembershipNodeBuilder runHistory(RunHistoryStore history, int buffer) {
		if (buffer < 1) {
			throw new IllegalArgumentException("The run history's buffer must hold at least one run, not " + buffer);
		}
		this.runHistory = Objects.requireNonNull(history);
		this.runHistoryBuffer = buffer;
		return this;
	}

	/**
	 * Whether the run history keeps an error's message (its first line, credentials taken
	 * out) beside its class: true by default; false keeps the class only
	 * ({@code membership.history.error-detail=class}).
	 */
	public MembershipNodeBuilder runHistoryErrorMessages(boolean messages) {
		this.runHistoryErrorMessages = messages;
		return this;
	}

	/** Timers use {@link System#nanoTime()}; a custom clock must run at the same rate. */
	public MembershipNodeBuilder clock(MonotonicClock clock) {
		this.clock = Objects.requireNonNull(clock);
		return this;
	}

	/**
	 * Where the node's loop, timers and events run; by default on threads of its own. For
	 * simulations.
	 */
	public MembershipNodeBuilder runtime(NodeRuntime runtime) {
		this.runtime = Objects.requireNonNull(runtime);
		return this;
	}

	/** The reactions given at once and those given late, in that order. */
	List<MembershipEventListener> allReactions() {
		List<MembershipEventListener> all = new ArrayList<>(this.reactions);
		all.addAll(this.lateReactions.get());
		return all;
	}

	public MembershipNode build() {
		return new MembershipNode(this);
	}

}
