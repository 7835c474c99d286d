package dev.membership.bench.support;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

/**
 * One node's view of a database: every statement it executes counted ({@code execute*} of
 * any statement, a batch as one), and so is every commit of a transaction (a round trip
 * of its own); {@link #sever()} cuts it off as a crash or a partition would (every call
 * fails from then on, the connections it holds included). Knows nothing of what the
 * statements are.
 */
public final class CountingDataSource {

	private final DataSource target;

	private final AtomicLong statements = new AtomicLong();

	private final AtomicLong commits = new AtomicLong();

	private volatile boolean severed;

	private final DataSource dataSource;

	public CountingDataSource(DataSource target) {
		this.target = target;
		this.dataSource = proxy(DataSource.class, target);
	}

	/** What the node's library is given. */
	public DataSource dataSource() {
		return this.dataSource;
	}

	public long statements() {
		return this.statements.get();
	}

	public long commits() {
		return this.commits.get();
	}

	/** From now on, every call fails as if the database were gone. */
	public void sever() {
		this.severed = true;
	}

	private <T> T proxy(Class<T> type, Object target) {
		InvocationHandler handler = (proxy, method, args) -> invoke(target, method, args);
		return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { type }, handler));
	}

	private Object invoke(Object target, Method method, Object[] args) throws Throwable {
		if (this.severed && !method.getName().equals("close")) {
			throw new SQLNonTransientConnectionException("severed: the node is cut off from the database", "08006");
		}
		String name = method.getName();
		if (target instanceof Statement && name.startsWith("execute")) {
			this.statements.incrementAndGet();
		}
		if (target instanceof Connection && name.equals("commit")) {
			this.commits.incrementAndGet();
		}
		Object result;
		try {
			result = method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
		Class<?> returned = method.getReturnType();
		if (result instanceof Connection && returned == Connection.class) {
			return proxy(Connection.class, result);
		}
		if (result instanceof Statement && Statement.class.isAssignableFrom(returned) && returned.isInterface()) {
			return proxy(returned, result);
		}
		return result;
	}

	@Override
	public String toString() {
		return "CountingDataSource[" + this.target + "]";
	}

	/**
	 * A pool of {@code size} connections to {@code url}, as a node's own pool would be.
	 */
	public static DataSource pool(String url, int size) {
		com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource();
		pool.setJdbcUrl(url);
		pool.setUsername("postgres");
		pool.setMaximumPoolSize(size);
		pool.setMinimumIdle(1);
		pool.setConnectionTimeout(2000);
		return pool;
	}

	/** Closes a pool made by {@link #pool(String, int)}. */
	public static void close(DataSource pool) {
		if (pool instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// closing a bench's pool: nothing to do
			}
		}
	}

}
