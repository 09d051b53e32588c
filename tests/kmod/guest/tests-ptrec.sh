# Sourced by guest.sh: the tests of the real ptrec.ko.
ptrec_tests() {
	echo "# ptrec.ko tests to come"
}
ptrec_bench() {
	echo "# ptrec bench to come"
}
