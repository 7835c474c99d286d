package dev.membership.engine.election;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.placement.Assignments;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.TermExecution;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.Partitions;

/**
 * A partitioned group as this node sees it, from its partitions' elections and the
 * placement it last read.
 */
public final class PartitionView implements Partitions {

	private final String group;

	private final int count;

	private final Map<String, GroupElection> units;

	private final Assignments assignments;

	private final Supplier<@Nullable String> address;

	PartitionView(String group, int count, Map<String, GroupElection> units, Assignments assignments,
			Supplier<@Nullable String> address) {
		this.group = group;
		this.count = count;
		this.units = units;
		this.assignments = assignments;
		this.address = address;
	}

	@Override
	public String group() {
		return this.group;
	}

	@Override
	public int count() {
		return this.count;
	}

	@Override
	public List<Integer> owned() {
		List<Integer> owned = new ArrayList<>();
		for (int p = 0; p < this.count; p++) {
			Term term = term0(p);
			if (term != null && term.isValid() && !term.isEnding()) {
				owned.add(p);
			}
		}
		return owned;
	}

	/**
	 * The terms of the partitions this node owns now (valid, not ending), by partition.
	 */
	public List<LeadershipTerm> ownedTerms() {
		List<LeadershipTerm> owned = new ArrayList<>();
		for (int p = 0; p < this.count; p++) {
			Term term = term0(p);
			if (term != null && term.isValid() && !term.isEnding()) {
				owned.add(term);
			}
		}
		return owned;
	}

	/** The term of {@code partition} while valid (ending or not). */
	public Optional<LeadershipTerm> term(int partition) {
		Term term = term0(partition);
		return (term != null && term.isValid()) ? Optional.of(term) : Optional.empty();
	}

	@Override
	public boolean runIfOwner(int partition, Runnable task) {
		Term term = term0(partition);
		return TermExecution.run((term != null) ? term.tryBegin("runIfOwner(" + this.group + ")", false) : null, task);
	}

	@Override
	public Map<Integer, LeaderInfo> owners() {
		Map<Integer, LeaderInfo> owners = new TreeMap<>();
		for (int p = 0; p < this.count; p++) {
			GroupElection unit = this.units.get(new Unit(this.group, p, this.count).leaseName());
			if (unit != null) {
				LeaderInfo self = unit.self(this.address.get());
				LeaderInfo info = (self != null) ? self : unit.leader().knownOther();
				if (info != null) {
					owners.put(p, info);
				}
			}
		}
		return owners;
	}

	@Override
	public Map<Integer, String> placement() {
		Map<Integer, String> placed = new TreeMap<>();
		for (int p = 0; p < this.count; p++) {
			String owner = this.assignments.owner(new Unit(this.group, p, this.count));
			if (owner != null) {
				placed.put(p, owner);
			}
		}
		return placed;
	}

	private Term term0(int partition) {
		if (partition < 0 || partition >= this.count) {
			throw new IllegalArgumentException(
					"Group '" + this.group + "' has partitions 0 to " + (this.count - 1) + ", not " + partition);
		}
		GroupElection unit = this.units.get(new Unit(this.group, partition, this.count).leaseName());
		return (unit != null) ? unit.term() : null;
	}

}
