package dev.membership.bench.guard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.mongodb.client.MongoClient;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.membership.Membership;
import dev.membership.actuate.RunObservations;
import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.CommandCounter;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.Waits;
import dev.membership.scheduling.LeaderOnlyBeanPostProcessor;
import dev.membership.spi.LeaderOnlyExecutionListener;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.RunObserver;

/**
 * The cost of one guarded call of a trivial method, each guard the way its users set it
 * up: {@code @LeaderOnly} on a leader and on a follower, ShedLock's
 * {@code @SchedulerLock} (method proxy, MongoDB provider) when the lock is free and when
 * another node holds it, and the unguarded call. Every guard is a Spring AOP proxy from a
 * Spring context.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GuardBenchmark {

	public static final String PLAIN = "unguarded";

	public static final String EMPTY_INTERCEPTOR = "proxy-with-empty-interceptor";

	public static final String CLOCK_INTERCEPTOR = "proxy-with-clock-read";

	public static final String LEADER_CHECK = "isLeader-if-then-call";

	public static final String LEADER_ONLY_LEADER = "LeaderOnly-leader";

	public static final String LEADER_ONLY_FOLLOWER = "LeaderOnly-follower";

	/**
	 * On the leader, every run a Micrometer observation timed into a meter registry, as
	 * with the actuator.
	 */
	public static final String LEADER_ONLY_OBSERVED = "LeaderOnly-leader-observed";

	public static final String SHEDLOCK_FREE = "SchedulerLock-free";

	public static final String SHEDLOCK_HELD = "SchedulerLock-held-elsewhere";

	@Param({ PLAIN, EMPTY_INTERCEPTOR, CLOCK_INTERCEPTOR, LEADER_CHECK, LEADER_ONLY_LEADER, LEADER_ONLY_OBSERVED,
			LEADER_ONLY_FOLLOWER, SHEDLOCK_FREE, SHEDLOCK_HELD })
	public String guard;

	private EmbeddedMongoServer server;

	private MongoClient client;

	private MongoClient otherClient;

	private BenchNode leader;

	private BenchNode follower;

	private SimpleLock heldElsewhere;

	private AnnotationConfigApplicationContext context;

	private Runnable call;

	/**
	 * Far ahead: the clock-read guard always lets the call through, as a leader's does.
	 */
	private final long deadline = System.nanoTime() + TimeUnit.DAYS.toNanos(1);

	/**
	 * Driver commands of the guarded node's client; the harness counts them per call in
	 * its own JVM.
	 */
	public static final CommandCounter COMMANDS = new CommandCounter();

	@Setup(Level.Trial)
	public void setUp() {
		this.server = new EmbeddedMongoServer();
		this.client = this.server.newClient(COMMANDS);
		this.context = new AnnotationConfigApplicationContext();
		switch (this.guard) {
			case PLAIN -> {
				this.context.registerBean(GuardedJobs.Plain.class);
				this.context.refresh();
				GuardedJobs.Plain job = this.context.getBean(GuardedJobs.Plain.class);
				this.call = job::run;
			}
			case EMPTY_INTERCEPTOR -> {
				// the floor of any Spring AOP guard: a CGLIB proxy whose interceptor only
				// proceeds
				ProxyFactory factory = new ProxyFactory(new GuardedJobs.Plain());
				factory.setProxyTargetClass(true);
				factory.addAdvice((MethodInterceptor) MethodInvocation::proceed);
				GuardedJobs.Plain job = (GuardedJobs.Plain) factory.getProxy();
				this.context.refresh();
				this.call = job::run;
			}
			case CLOCK_INTERCEPTOR -> {
				// the floor of a guard that is safe after a pause: the proxy and one read
				// of the monotonic clock
				ProxyFactory factory = new ProxyFactory(new GuardedJobs.Plain());
				factory.setProxyTargetClass(true);
				factory.addAdvice((MethodInterceptor) (invocation) -> (System.nanoTime() - this.deadline < 0)
						? invocation.proceed() : null);
				GuardedJobs.Plain job = (GuardedJobs.Plain) factory.getProxy();
				this.context.refresh();
				this.call = job::run;
			}
			case LEADER_CHECK -> {
				// the check alone, as code that asks the node itself would write it
				this.leader = BenchNode.start(settings("leader"), this.client.getDatabase("bench"),
						dev.membership.spi.LeadershipObserver.none(), null);
				Waits.until("a leader", Duration.ofSeconds(10), () -> this.leader.node().isLeader("default"));
				GuardedJobs.Plain job = new GuardedJobs.Plain();
				Membership membership = this.leader.node();
				this.context.refresh();
				this.call = () -> {
					if (membership.isLeader("default")) {
						job.run();
					}
				};
			}
			case LEADER_ONLY_LEADER, LEADER_ONLY_OBSERVED, LEADER_ONLY_FOLLOWER -> {
				this.otherClient = this.server.newClient();
				this.leader = BenchNode.start(settings("leader"), this.otherClient.getDatabase("bench"),
						dev.membership.spi.LeadershipObserver.none(), null,
						LEADER_ONLY_OBSERVED.equals(this.guard) ? List.of(observations()) : List.of());
				Waits.until("a leader", Duration.ofSeconds(10), () -> this.leader.node().isLeader("default"));
				Membership guardedBy = this.leader.node();
				if (LEADER_ONLY_FOLLOWER.equals(this.guard)) {
					this.follower = BenchNode.start(settings("follower"), this.client.getDatabase("bench"),
							dev.membership.spi.LeadershipObserver.none(), null);
					Waits.until("a follower that knows the leader", Duration.ofSeconds(10),
							() -> this.follower.node().leader("default").isPresent());
					guardedBy = this.follower.node();
				}
				Membership membership = guardedBy;
				this.context.registerBean(LeaderOnlyBeanPostProcessor.class,
						() -> new LeaderOnlyBeanPostProcessor(() -> membership, LeaderOnlyExecutionListener::none));
				this.context.registerBean(GuardedJobs.WithLeaderOnly.class);
				this.context.refresh();
				GuardedJobs.WithLeaderOnly job = this.context.getBean(GuardedJobs.WithLeaderOnly.class);
				this.call = job::run;
			}
			case SHEDLOCK_FREE, SHEDLOCK_HELD -> {
				LockProvider provider = new MongoLockProvider(this.client.getDatabase("bench"));
				if (SHEDLOCK_HELD.equals(this.guard)) {
					this.otherClient = this.server.newClient();
					Optional<SimpleLock> lock = new MongoLockProvider(this.otherClient.getDatabase("bench"))
						.lock(new LockConfiguration(Instant.now(), "bench-job", Duration.ofHours(1), Duration.ZERO));
					this.heldElsewhere = lock.orElseThrow();
				}
				this.context.registerBean(LockProvider.class, () -> provider);
				this.context.register(ShedLockConfiguration.class);
				this.context.registerBean(GuardedJobs.WithSchedulerLock.class);
				this.context.refresh();
				GuardedJobs.WithSchedulerLock job = this.context.getBean(GuardedJobs.WithSchedulerLock.class);
				this.call = job::run;
			}
			default -> throw new IllegalArgumentException(this.guard);
		}
		this.call.run(); // first call outside the measurement: caches, connections
		COMMANDS.reset();
	}

	/**
	 * Observations as Spring Boot's actuator sets them up: each stopped one timed into a
	 * meter registry.
	 */
	private static RunObserver observations() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
		return new RunObservations(registry, null);
	}

	static MembershipSettings settings(String nodeId) {
		return MembershipSettings.builder(nodeId)
			.renewalInterval(Duration.ofSeconds(1))
			.leaseDuration(Duration.ofSeconds(3))
			.livenessWindow(Duration.ofSeconds(2))
			.build();
	}

	@Benchmark
	public void guardedCall() {
		this.call.run();
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.context.close();
		if (this.heldElsewhere != null) {
			this.heldElsewhere.unlock();
		}
		if (this.follower != null) {
			this.follower.close();
		}
		if (this.leader != null) {
			this.leader.close();
		}
		if (this.otherClient != null) {
			this.otherClient.close();
		}
		this.client.close();
		this.server.close();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(interceptMode = EnableSchedulerLock.InterceptMode.PROXY_METHOD, defaultLockAtMostFor = "PT30S")
	static class ShedLockConfiguration {

	}

}
