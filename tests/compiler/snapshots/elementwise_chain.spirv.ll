; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @elementwise_chain(ptr addrspace(1) %a_base, i64 %0, ptr addrspace(1) %b_base, i64 %1, ptr addrspace(1) %c_base, i64 %2, ptr addrspace(1) %out3_base, i64 %3, i64 %4, i64 %n) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  br label %body

body:                                             ; preds = %entry
  %off = mul i64 %gid, 8
  %boff = add i64 %2, %off
  %ptr = getelementptr i8, ptr addrspace(1) %c_base, i64 %boff
  %c_elem = load double, ptr addrspace(1) %ptr, align 8
  %off1 = mul i64 %gid, 8
  %boff2 = add i64 %1, %off1
  %ptr3 = getelementptr i8, ptr addrspace(1) %b_base, i64 %boff2
  %b_elem = load double, ptr addrspace(1) %ptr3, align 8
  %off4 = mul i64 %gid, 8
  %boff5 = add i64 %0, %off4
  %ptr6 = getelementptr i8, ptr addrspace(1) %a_base, i64 %boff5
  %a_elem = load double, ptr addrspace(1) %ptr6, align 8
  %mul = fmul double %a_elem, %b_elem
  %add = fadd double %mul, %c_elem
  %call = call spir_func double @_Z4sqrtd(double %add)
  %sub = fsub double %call, 1.000000e+00
  %off7 = mul i64 %gid, 8
  %boff8 = add i64 %3, %off7
  %ptr9 = getelementptr i8, ptr addrspace(1) %out3_base, i64 %boff8
  store double %sub, ptr addrspace(1) %ptr9, align 8
  br label %exit

exit:                                             ; preds = %body
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

declare spir_func double @_Z4sqrtd(double)
