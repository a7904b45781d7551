# The Go tests the VM suite runs (sourced by guest/suite.sh; scripts/vm/suite.sh builds a
# test binary for each package named here). gotest WHO PACKAGE REGEX: as root, and as an
# unprivileged dynamic user as deploy/kothd.service runs the daemon, both in a delegated
# cgroup v2. Chosen to stay within about twenty minutes under emulation (TCG) on two
# cores: everything that touches cgroups, bwrap and the unprivileged path; one real cycle
# per protocol (the trust, build and whole-run steps measured 4.5 of those minutes).

# runner/sandbox: cgroups (limits, CPU shares per answer, memory caps and whose OOM it
# was, the run's memory, pids), bwrap's view, the channels between sandboxes, the disk
# tmpfs, the launcher. Left out: TestHostile* (minutes of fork and memory bombs, whose
# cgroup parts TestCgroupSandbox, TestLauncherMemoryLimit and the OOM tests cover).
sandbox_tests='^(TestCgroupSandbox|TestCgroupsOff|TestAnswerCPURead|TestBwrapLimitsApplied|TestBwrapProcessLimitIsPerSandbox|TestBwrapView|TestBwrapHidesOptionsAndEnvironmentFromProc|TestSandboxChannelsClosed|TestSandboxDeniesNamespacesAndOtherProcesses|TestSandboxFilterActive|TestSandboxUIDs|TestTwoSandboxesNeverShareAUID|TestSandboxMasksGlobalCounters|TestSandboxMasksMovingStatAndMeminfo|TestSandboxNoPty|TestMemoryFaultSeenByTheHost|TestBotDir.*|TestHostileDiskAllowance|TestDirAllowance|TestReadOnlyDir|TestMountPoint|TestLauncherAnswers|TestLauncherTimeoutKillsEverything|TestLauncherMemoryLimit|TestLauncherCPUTimePerDecision|TestLauncherParricide|TestLauncherHostFaults|TestLauncherOwnFailureIsHostFault|TestRunMemoryKillIsNotTheVictims|TestDecisionKilledForTheRunsMemory|TestSocketBuffersBounded|TestProcessOwnsItsSandbox|TestLauncherStarved|TestSandboxDeniesSelfStarving|TestArgvBwrap|TestArgvTimeout|TestBwrapSetupFailureIsHostFault)$'

# runner/sandbox's trust mechanisms added since: the memory kill's attribution on v2
# (memory.events, memory.peak), the run's memory watcher, the seccomp user-notification
# supervisor answering sysinfo (the helper joining the cgroup through cgroup.procs before
# bwrap), statfs denied, the Python fork server. A step of their own, so that --only can
# run them alone.
trust_tests='^(TestJudgeKillV2|TestJudgeKillV1|TestMemoryWatcherV2|TestWatcherPassesOverMemoryAStopCannotFree|TestOneShotStoppedForItsShare|TestSharedMemoryStaysInItsSandbox|TestSandboxSysinfoConstant|TestSandboxSysinfoThroughLauncher|TestSandboxHelperFitsOneProcess|TestSandboxStatfsDenied|TestForkServerSameAsPlainLaunch|TestForkServerSameEnds|TestForkServerHostileBot|TestForkServerTimeoutSchedstat)$'
# runner/build: builds in a bounded tmpfs (a disk filler stopped, sparse files counted,
# a failure leaving only its log).
build_tests='^(TestBuildDiskFillerStopped|TestBuildFailureLeavesOnlyLog|TestBuildSparseFilesOverAllowance)$'

# Under emulation (TCG, several times slower than the host) a few tests' CPU budgets and
# deadlines are shorter than a Python or bwrap start-up takes (TestBwrapLimitsApplied
# gives `cat` 1.5 s of CPU, which an unprivileged sandbox's set-up exceeds): they test budgets and
# timeouts, which are the same on cgroup v1 and v2 once the CPU accounting is (that,
# TestAnswerCPURead and TestLauncherCPUTimePerDecision check here). Under KVM they run.
slow='^(TestLauncherTimeoutKillsEverything|TestBwrapLimitsApplied|TestAnswerBudgetIsShared|TestTotalBudgetShares|TestSpentBudgetKillsLingeringChildren|TestDirPoolBenches)$'
[ "$(cat /host/accel 2>/dev/null)" = kvm ] && slow='^$'
echo "suite: left out under $(cat /host/accel 2>/dev/null): $slow"

for who in root unprivileged; do
  step "go-test-sandbox-$who" gotest "$who" runner/sandbox "$sandbox_tests" "$slow"
  step "go-test-trust-$who" gotest "$who" runner/sandbox "$trust_tests" "$slow"
  step "go-test-build-$who" gotest "$who" runner/build "$build_tests" "$slow"
  # The pyclass harness's trust and CPU shares (shares_test), the dirfiles protocol.
  step "go-test-pyclass-$who" gotest "$who" runner/protocol/pyclass '^(TestStraysKilledAfterReply|TestSpentBudgetKillsLingeringChildren|TestStartupsAreCharged|TestTotalMemoryBound|TestLongClassNameTravelsOverThePipe|TestOversizedReplyIsOutputLimit|TestVanishedWorkCopyIsHostFault|TestCallTimerIsCPUTimeWithWallBackstop|TestAnswerBudgetIsShared|TestTotalBudgetShares|TestRunBudget)$' "$slow"
  step "go-test-dirfiles-$who" gotest "$who" runner/protocol/dirfiles '.' "$slow"
  # A real cycle of the pyclass protocol (forty's snapshot).
  step "go-test-forty-cycle-$who" gotest "$who" engine/forty '^TestFortyCycle$'
done
# Two whole runs against answers that use memory against the others, as the service runs
# them: forty's colluders (two answers that with the leader fill the run's memory, so the
# kernel would kill the leader: the run's memory watcher stops them first; nothing voided,
# the leader first), Bank Heist's self-voider (an answer overrunning its own sandbox's
# memory: its own memory fault, not a host fault voiding the game).
step "go-test-forty-colluders-unprivileged" gotest unprivileged engine/forty '^TestColludersCannotKnockTheLeaderOff$'
step "go-test-bankheist-selfvoid-unprivileged" gotest unprivileged engine/bankheist '^TestBankHeistSelfVoid$'
# A real cycle of the other two protocols, as the service runs them (unprivileged; as root
# they pass too, but take four minutes each under emulation): argv (Bank Heist's snapshot,
# one tournament of 2 games: every answer fetched, built in its language, validated and
# played), dirfiles (Mafia's, one game).
step "go-test-bankheist-cycle-unprivileged" gotest unprivileged engine/bankheist '^TestBankHeistSnapshot$'
# Mafia's needs KVM: under TCG its filler bot's decisions alone outlast the run budget
# (10 min of wall time; as root, a launcher's start outlasted its 30 s), so there the
# dirfiles protocol is covered by runner/protocol/dirfiles's tests above.
if [ "$(cat /host/accel 2>/dev/null)" = kvm ]; then
  step "go-test-mafia-cycle-unprivileged" gotest unprivileged engine/mafia '^TestMafiaSnapshot$'
else
  echo "suite: left out under tcg: engine/mafia TestMafiaSnapshot (run budget under emulation)"
fi
